/**
 * Building the page: elements from tags, attributes and children, text always as text
 * (never HTML), so nothing a player typed can become markup.
 *
 * @module
 */

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | EventListener | undefined>;

/**
 * An element with attributes and children. An `on…` function is an event listener. A
 * boolean is an HTML boolean attribute (present or absent), except for `aria-*` attributes,
 * whose booleans are the words "true" and "false" ARIA expects: `aria-pressed=""` is not
 * pressed to a screen reader, nor to a `[aria-pressed="true"]` style.
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else if (typeof value === "boolean") {
      if (name.startsWith("aria-")) element.setAttribute(name, String(value));
      else if (value) element.setAttribute(name, "");
    } else {
      element.setAttribute(name, String(value));
    }
  }
  append(element, ...children);
  return element;
}

/** Appends children (text as text nodes; null, undefined and false skipped). */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** Replaces a node's children. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** An SVG element (cards, badges, charts); text children become text nodes. */
export function svg(tag: string, attrs: Record<string, string | number | undefined> = {}, ...children: (Node | string)[]): SVGElement {
  const element = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attrs)) if (value !== undefined) element.setAttribute(name, String(value));
  for (const child of children) element.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  return element;
}
