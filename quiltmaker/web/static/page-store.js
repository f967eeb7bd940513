// @ts-check
// One store per page, one way to change it: every page (the game, the lobby, a
// player's page) keeps its whole state in a store made here, reads it as `store.state`
// (typed read-only: an assignment is a type error) and changes it only through
// `store.update(change)`, which then draws the page again.

/**
 * @template {object} S
 * @typedef {object} Store
 * @property {import("./page").Frozen<S>} state what the page shows and knows, read-only
 * @property {(change: Partial<S> | ((state: S) => void)) => void} update change the state (fields to
 *   set, or a function that changes it in place), then draw the page from it
 * @property {(draw: () => void) => void} setRenderer install the function that draws the page (its entry module does, once)
 */

/**
 * A store holding `initial`. Drawing is synchronous: when `update` returns, the page
 * shows the change. An update made while drawing (by a draw step) is drawn once the
 * drawing in progress has finished, never in the middle of it.
 * @template {object} S
 * @param {S} initial
 * @returns {Store<S>}
 */
export function createStore(initial) {
  const state = initial;
  let draw = () => {};
  let drawing = false;
  let again = false;
  return {
    state: /** @type {import("./page").Frozen<S>} */ (state),
    update(change) {
      if (typeof change === "function") change(state);
      else Object.assign(state, change);
      if (drawing) {
        again = true;
        return;
      }
      drawing = true;
      try {
        do {
          again = false;
          draw();
        } while (again);
      } finally {
        drawing = false;
      }
    },
    setRenderer(renderer) {
      draw = renderer;
    },
  };
}
