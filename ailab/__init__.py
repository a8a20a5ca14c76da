"""The AI lab: how the runtime AI (``ai``) is measured and tuned; nothing the site runs.

* :mod:`ailab.arena` -- seat-swapped bot-versus-bot games (``python -m ailab.arena``),
  seating the site's levels and the lab's own bots (the frozen ``*-v1`` levels);
* :mod:`ailab.frozen_v1` -- the AI as it was before issue 13, a yardstick;
* :mod:`ailab.ab` -- two tunings of a level head to head;
* :mod:`ailab.bench` -- search speed and answer time per level;
* :mod:`ailab.learn` -- fits the learned evaluator's weights (``ai/weights/``);
* :mod:`ailab.ratings` -- fits the levels' OpenSkill ratings (``ai/ratings.json``);
* :mod:`ailab.anchor` -- our levels against OpenSpiel's searches (the ``anchors`` extra);
* ``ailab/tuning/`` -- the measurements behind the current settings (README, logs).
"""
