"""The turn notation (the engine's, as the CLI reads and writes it) and the board printout,
from Python."""

from __future__ import annotations

import random

import pytest

from theboss import board, engine
from theboss.errors import InvalidNotation
from theboss.v1 import model_pb2


def test_every_legal_turn_prints_and_parses_back() -> None:
    for players in (2, 3, 4):
        game = engine.Game(players, 40 + players)
        rng = random.Random(players)
        while not game.is_over:
            view = game.view(game.to_move)
            for turn in game.legal_turns()[::37]:
                text = engine.turn_text(turn)
                assert "\n" not in text and text.startswith(("place ", "play "))
                assert engine.parse_turn(text, view) == turn
                assert engine.parse_turn(text) == turn
            game.apply_index(rng.randrange(game.legal_count()))


def test_the_canonical_form_and_what_people_type() -> None:
    turn = model_pb2.TurnAction(
        placement=model_pb2.Placement(location=model_pb2.LOCATION_BOSTON, experts=2, occasionals=1),
        card=model_pb2.Card(city=model_pb2.CITY_DETROIT, money=3),
    )
    assert engine.turn_text(turn) == "place boston 2e 1o; play detroit 3"
    for typed in ("place boston 2e 1o; play detroit 3", "pl bos 1o 2e, play det 3m", "PLACE Boston 2E 1O PLAY Detroit 3"):
        assert engine.parse_turn(typed) == turn
    sanction = model_pb2.TurnAction(card=model_pb2.Card(city=model_pb2.CITY_KANSAS_CITY, sanction=model_pb2.SANCTION_REVOLVER))
    assert engine.turn_text(sanction) == "play kansas city revolver"
    assert engine.parse_turn("play kc rev") == sanction
    assert engine.card_text(sanction.card) == "Kansas City revolver"
    assert engine.location_name(model_pb2.LOCATION_CHICAGO) == "Chicago"
    assert "place" in engine.NOTATION and "play" in engine.NOTATION


def test_a_text_that_is_no_turn_or_not_one_the_view_allows_says_why() -> None:
    game = engine.Game(3, 5)
    view = game.view(game.to_move)
    card = engine.turn_text(game.legal_turns()[0]).split("; ")[-1]
    cases = {
        "dance": "not part of a turn",
        "place boston 2e": "ends with the card",
        "play chicago 3": "no location",
        f"place chicago 1e; {card}": "Chicago needs gangsters",
        f"place boston 9e; {card}": "Expert(s) available",
        f"place boston 1o; {card}": "need an Expert",
    }
    for text, reason in cases.items():
        with pytest.raises(InvalidNotation) as refused:
            engine.parse_turn(text, view)
        assert reason in refused.value.message, (text, refused.value.message)
        assert refused.value.field == "text"
    other = game.view((game.to_move + 1) % 3)
    with pytest.raises(InvalidNotation, match="not your turn"):
        engine.parse_turn(card, other)


def test_the_board_prints_what_the_view_shows_and_nothing_else() -> None:
    game = engine.Game(3, 11)
    for _ in range(7):
        game.apply(game.legal_turns()[-1])
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    text = board.render(view, names=["Ann", "Bob", "Cy"])
    assert "round 1" in text and f"turn {view.turn}/5" in text and "[running]" in text
    for location in view.locations:
        assert engine.location_name(location.location) in text
    assert "Your hand: " + ", ".join(engine.card_text(c) for c in view.hand) in text
    assert "Your turn" in text and f"{['Ann', 'Bob', 'Cy'][seat]} (you) >" in text
    # Another seat's hand is not printed: only its backs, as the view has them.
    for other in range(3):
        if other != seat:
            assert not any(engine.card_text(c) in text for c in game.hand(other) if c not in view.hand)
    # A spectator sees no hand and no choices; the end shows the winners.
    assert "Your hand" not in board.render(game.view())
    while not game.is_over:
        game.apply(game.legal_turns()[0])
    final = board.render(game.view())
    assert "[finished]" in final and "Winners:" in final
