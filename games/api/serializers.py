"""The API's shared outputs: a game document and its seats (tables, play, replay)."""

from __future__ import annotations

from rest_framework import serializers

from games.models import Game, SeatResult


class ClockOutput(serializers.Serializer):
    deadline = serializers.DateTimeField(
        allow_null=True, help_text="when the seat runs out of time (while it is to move)")
    time_left = serializers.FloatField(allow_null=True, help_text="seconds left now")



class LeftOutput(serializers.Serializer):
    username = serializers.CharField(allow_null=True)
    reason = serializers.ChoiceField(choices=["resigned", "timeout", "handover"])



class SeatOutput(serializers.Serializer):
    index = serializers.IntegerField()
    type = serializers.ChoiceField(choices=["human", "ai"])
    username = serializers.CharField(allow_null=True)
    level = serializers.CharField(allow_null=True)
    clock = ClockOutput(allow_null=True, required=False)
    left = LeftOutput(allow_null=True, required=False,
                      help_text="the person the AI replaced in this seat, and why")



class SeatResultOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    username = serializers.CharField(
        allow_null=True, help_text="the person the result counts for (a leaver included)")
    level = serializers.CharField(allow_null=True, help_text="an AI seated from the start")
    place = serializers.IntegerField(
        help_text="1 is best, ties share a place; leavers after every seat that stayed")
    points = serializers.IntegerField(allow_null=True)
    ended = serializers.ChoiceField(
        choices=SeatResult.Ended.values,
        help_text="how the seat ended for that person: a leaver's row says how they left")
    won = serializers.BooleanField(help_text="place 1 among the seats that stayed")
    rating_before = serializers.IntegerField(allow_null=True)
    rating_after = serializers.IntegerField(allow_null=True)



class TimeControlOutput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=Game.Clock.values)
    reserve = serializers.IntegerField()
    increment = serializers.IntegerField()
    days = serializers.IntegerField()



class GameDocumentOutput(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.CharField()
    variant = serializers.CharField()
    status = serializers.ChoiceField(choices=Game.Status.choices)
    version = serializers.IntegerField()
    rewinds = serializers.IntegerField(
        help_text="how many times the move log was cut back (a practice game's undo): when "
        "it changes, fetch the moves whole rather than since the last one you have")
    seats = SeatOutput(many=True)
    to_move = serializers.ListField(child=serializers.IntegerField())
    my_seat = serializers.IntegerField(allow_null=True)
    view = serializers.JSONField(help_text="engine.observe for your seat (spectator otherwise)")
    legal_actions = serializers.ListField(child=serializers.JSONField())
    result = serializers.JSONField(
        allow_null=True, help_text="the engine's {scores, winners} once finished; who won "
        "(a person who left never does, whatever the AI then scored) is seat_results' won")
    seat_results = SeatResultOutput(
        many=True, help_text="the record of the result, one row per seat, once finished")
    rated = serializers.BooleanField(help_text="whether the result changes ratings")
    time_control = TimeControlOutput()
    departure_rule = serializers.ChoiceField(choices=Game.DepartureRule.values)
    takeover_level = serializers.CharField()
