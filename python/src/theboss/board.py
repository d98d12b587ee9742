"""A view printed as a table, for people watching a bot (logs, notebooks, a terminal): the
round and the police, every location with its cards and gangsters, every seat's money and
supply, and the viewer's hand and choices. Plain text; names are the turn notation's.

::

    from theboss import board, engine

    game = engine.Game(players=3, seed=7)
    print(board.render(game.view(0)))

The layout follows the ``boss`` CLI's table. It reads only the view: what the viewer may
not know is not in it, so it cannot be printed.
"""

from __future__ import annotations

from typing import Optional, Sequence

from theboss._engine import card_text, deck, location_name
from theboss.v1 import model_pb2

__all__ = ["render"]

_FACES = {
    model_pb2.SANCTION_REVOLVER: "Rev",
    model_pb2.SANCTION_PRISON: "Pri",
    model_pb2.SANCTION_HOSPITAL: "Hos",
    model_pb2.SANCTION_BANISHED: "Ban",
}


def _face(card: model_pb2.Card) -> str:
    if card.WhichOneof("face") == "money":
        return str(card.money)
    return _FACES.get(card.sanction, "?")


def _seat_names(view: model_pb2.GameView, names: Optional[Sequence[str]]) -> list[str]:
    shown = []
    for seat in view.seats:
        if names is not None and seat.seat < len(names):
            name = names[seat.seat]
        elif seat.HasField("player") and seat.player.display_name:
            name = seat.player.display_name
        else:
            name = f"seat {seat.seat}"
        if view.HasField("viewer_seat") and view.viewer_seat == seat.seat:
            name += " (you)"
        shown.append(name)
    return shown


def render(view: model_pb2.GameView, names: Optional[Sequence[str]] = None) -> str:
    """The view as a table of text (``names``: the seats' names, else the view's players',
    else ``seat N``)."""
    seat_names = _seat_names(view, names)
    lines = []
    status = model_pb2.GameStatus.Name(view.status).removeprefix("GAME_STATUS_").lower()
    head = f"THE BOSS  round {view.round} · turn {view.turn}/5"
    if view.last_round:
        head += " · LAST ROUND"
    if view.contenders:
        head += " · decisive round: " + ", ".join(seat_names[s] for s in view.contenders)
    lines.append(f"{head}  [{status}]")
    revealed = [model_pb2.PoliceCard.Name(c).removeprefix("POLICE_CARD_").lower() for c in view.police.revealed]
    lines.append(
        f"Police: silver {view.police.silver}/3, gold {view.police.gold}/3 "
        f"(revealed: {', '.join(revealed) or 'none'}; {view.police.remaining} left)"
    )
    lines.append("")

    faces: dict[int, list[str]] = {}
    for card in deck():
        faces.setdefault(card.city, []).append(_face(card))
    header = f"  {'location':<14} {'rewards':<18} {'down':<4} {'played':<14}"
    header += "".join(f" {name[:10]:<10}" for name in seat_names)
    lines.append(header.rstrip())
    for place in view.locations:
        name = location_name(place.location)
        if place.location == model_pb2.LOCATION_CHICAGO:
            rewards = f"pays {view.chicago_value} M$"
        else:
            rewards = " ".join(faces.get(place.location, []))
        played = ",".join(_face(c) for c in place.played)
        row = f"  {name:<14} {rewards:<18} {'[?]' if place.face_down else '':<4} {played:<14}"
        for seat, gangsters in enumerate(place.gangsters):
            banished = seat < len(view.seats) and place.location in view.seats[seat].banished
            if banished:
                cell = "banned"
            elif gangsters.experts + gangsters.occasionals == 0:
                cell = "·"
            else:
                cell = f"{gangsters.experts}E" + (f"+{gangsters.occasionals}O" if gangsters.occasionals else "")
                if place.HasField("leader") and place.leader == seat:
                    cell += "!"
            row += f" {cell:<10}"
        lines.append(row.rstrip())
    lines.append("")

    lines.append("  player           M$  free Exp. placed  hosp prison dead  Occ  hand (backs)")
    for player in view.seats:
        name = seat_names[player.seat][:14]
        if view.HasField("to_move") and view.to_move == player.seat:
            name += " >"
        supply = player.supply
        backs = " ".join(
            f"{location_name(c.city)}×{c.count}" for c in player.hand_backs if c.count > 0
        )
        lines.append(
            f"  {name:<16} {player.money:>3} {supply.experts_free:>10} {supply.experts_placed:>6} "
            f"{supply.experts_in_hospital:>5} {sum(supply.experts_in_prison):>6} "
            f"{supply.experts_killed:>4} {supply.occasionals:>4}  {backs}".rstrip()
        )
    if view.HasField("viewer_seat"):
        lines.append("")
        lines.append("Your hand: " + (", ".join(card_text(c) for c in view.hand) or "empty"))
    if view.HasField("legal"):
        cards = ", ".join(card_text(c) for c in view.legal.cards)
        lines.append(f"Your turn. Cards you may play: {cards}")
        for option in view.legal.placements:
            lines.append(
                f"  place in {location_name(option.location)}: up to {option.max_experts}E "
                f"+ {option.max_occasionals}O, at least {max(option.min_gangsters, 1)} gangsters"
                + ("" if option.expert_present else "; Occasionals need an Expert")
            )
    if view.HasField("outcome"):
        winners = ", ".join(seat_names[s] for s in view.outcome.winners)
        lines.append("")
        lines.append(f"Game over after {view.outcome.rounds} rounds. Winners: {winners}")
        for standing in sorted(view.outcome.standings, key=lambda s: -s.money):
            lines.append(f"  {seat_names[standing.seat]}: {standing.money} M$")
    return "\n".join(lines) + "\n"
