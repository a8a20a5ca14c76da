"""The game record and its one write path: dealing a game, applying an action (services),
reading a game and each viewer's view of it (selectors), the errors, and the signals by
which every change is announced to the features that react."""
