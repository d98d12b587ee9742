/**
 * The game's pieces drawn as SVG, made here (no downloaded art): city cards (the city's
 * colour, number and name, the face: money or a sanction's symbol), card backs, police
 * badges. Every drawing is decorative (`aria-hidden`): the element that holds it carries the
 * card's words, so nothing is told by colour or picture alone.
 *
 * @module
 */

import { City, PoliceCard, Sanction, type Card } from "@theboss/client";

import { svg } from "./dom.js";
import { cityName, sanctionName } from "./names.js";

/** Each city's colour (also used for its column on the board), dark enough for white text. */
export const CITY_COLOURS: Record<number, string> = {
  [City.NEW_YORK]: "#1f5fa8",
  [City.BOSTON]: "#2e7d32",
  [City.DETROIT]: "#5d4037",
  [City.KANSAS_CITY]: "#b3261e",
  [City.CINCINNATI]: "#6a1b9a",
  [City.MEMPHIS]: "#00695c",
  [City.PHILADELPHIA]: "#9a5b00",
};

const W = 60;
const H = 84;

/** A sanction's symbol, centred at (30, 52). */
function sanctionSymbol(s: Sanction): SVGElement {
  const ink = { stroke: "currentColor", fill: "none", "stroke-width": 3, "stroke-linecap": "round" };
  switch (s) {
    case Sanction.REVOLVER: // A sight: the expert is shot.
      return svg("g", ink, svg("circle", { cx: 30, cy: 52, r: 12 }), svg("path", { d: "M30 36v32M14 52h32" }));
    case Sanction.PRISON: // Bars.
      return svg("g", ink, svg("rect", { x: 17, y: 40, width: 26, height: 24, rx: 2 }), svg("path", { d: "M24 40v24M30 40v24M36 40v24" }));
    case Sanction.HOSPITAL: // A cross.
      return svg("path", { d: "M26 40h8v8h8v8h-8v8h-8v-8h-8v-8h8z", fill: "currentColor" });
    case Sanction.BANISHED: // No entry.
      return svg("g", ink, svg("circle", { cx: 30, cy: 52, r: 12 }), svg("path", { d: "M21.5 60.5l17-17" }));
    default:
      return svg("g");
  }
}

/** A city card, face up. */
export function cardSvg(card: Card, size = 1): SVGElement {
  const colour = CITY_COLOURS[card.city] ?? "#555";
  const face = card.face.case === "money" ? svg("text", { x: 30, y: 62, "text-anchor": "middle", "font-size": 26, "font-weight": 700, fill: "currentColor" }, `$${card.face.value}`) : card.face.case === "sanction" ? sanctionSymbol(card.face.value) : svg("g");
  const label = card.face.case === "sanction" ? svg("text", { x: 30, y: 78, "text-anchor": "middle", "font-size": 8, fill: "currentColor" }, sanctionName(card.face.value)) : svg("g");
  return svg(
    "svg",
    { class: "card-svg", viewBox: `0 0 ${W} ${H}`, width: W * size, height: H * size, "aria-hidden": "true", focusable: "false" },
    svg("rect", { x: 1, y: 1, width: W - 2, height: H - 2, rx: 6, fill: "#fffdf6", stroke: colour, "stroke-width": 2 }),
    svg("rect", { x: 1, y: 1, width: W - 2, height: 22, rx: 6, fill: colour }),
    svg("rect", { x: 1, y: 15, width: W - 2, height: 8, fill: colour }),
    svg("text", { x: 6, y: 16, "font-size": 11, "font-weight": 700, fill: "#fff" }, String(card.city)),
    svg("text", { x: W - 5, y: 15, "text-anchor": "end", "font-size": 7, fill: "#fff" }, shortCity(card.city)),
    svg("g", { color: "#222" }, face, label),
  );
}

/** A card's back (of a known city, as backs are public, or of none). */
export function backSvg(city: City | undefined, size = 1): SVGElement {
  const colour = city !== undefined ? (CITY_COLOURS[city] ?? "#555") : "#444";
  return svg(
    "svg",
    { class: "card-svg back", viewBox: `0 0 ${W} ${H}`, width: W * size, height: H * size, "aria-hidden": "true", focusable: "false" },
    svg("rect", { x: 1, y: 1, width: W - 2, height: H - 2, rx: 6, fill: colour, stroke: "#222", "stroke-width": 1 }),
    svg("rect", { x: 7, y: 7, width: W - 14, height: H - 14, rx: 4, fill: "none", stroke: "#fff8", "stroke-width": 2, "stroke-dasharray": "4 3" }),
    svg("text", { x: 30, y: 50, "text-anchor": "middle", "font-size": 18, "font-weight": 700, fill: "#fff" }, city !== undefined ? String(city) : "?"),
  );
}

function shortCity(city: City): string {
  const name = cityName(city);
  return name.length > 9 ? name.split(" ").map((w) => w[0]).join("") : name;
}

/** A police badge: a silver shield, a gold star, or both (the double). */
export function badgeSvg(card: PoliceCard): SVGElement {
  const shield = (x: number) => svg("path", { d: `M${x} 4l10 4v8c0 6-4 10-10 12c-6-2-10-6-10-12v-8z`, fill: "#c0c7cf", stroke: "#555", "stroke-width": 1.2 });
  const star = (x: number) =>
    svg("path", { d: `M${x} 3l3 7h7l-5.5 4.5l2 7.5l-6.5-4.5l-6.5 4.5l2-7.5l-5.5-4.5h7z`, fill: "#e3b23c", stroke: "#7a5b00", "stroke-width": 1.2 });
  const parts = card === PoliceCard.SILVER ? [shield(12)] : card === PoliceCard.GOLD ? [star(12)] : [shield(12), star(34)];
  const width = card === PoliceCard.DOUBLE ? 46 : 24;
  return svg("svg", { class: "badge-svg", viewBox: `0 0 ${width} 30`, width, height: 30, "aria-hidden": "true", focusable: "false" }, ...parts);
}
