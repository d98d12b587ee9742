/**
 * What every page of the front end is: a function that fills the page's root and returns
 * how to stop it (streams closed, timers cleared) when the route changes. Kept apart from
 * `main.ts`, which imports every page, so that no page imports the router.
 *
 * @module
 */

/** Stops a page: closes its streams and clears its timers. */
export type Stop = () => void;
