// @ts-check
// Going back through a game: past positions as the server drew them
// (GET /api/games/{id}/positions), and the analysis with its evaluation graph, its marked
// moves and each player's accuracy; and playing on from a position against the computer.
import { $, api, drawnAs, el, errorText, fill, formatNumber, saveGame, setText } from "./common.js";
import { number, t } from "./i18n.js";
import { evalGraph, spinner } from "./graph.js";
import { nameOf, reducedMotion, replayAvailable, shownJudgement, ui, update } from "./store.js";
import { say } from "./notices.js";
import { cancelHold } from "./hand.js";

/** @typedef {import("./contract").Judgement} Judgement */
/** @typedef {import("./contract").PlayerReview} PlayerReview */
/** @typedef {import("./contract").AnalysedPosition} AnalysedPosition */

// ---------------------------------------------------------------- replay

export function renderReplay() {
  const box = $("replay");
  const s = ui.state;
  box.hidden = !replayAvailable();
  if (box.hidden || !s) return; // available only with a state
  const total = (s.moves || []).length;
  const k = ui.replay.ply === null ? total : ui.replay.ply;
  const at = k === 0 ? t("start of {total}", { total }) : t("move {ply} of {total}", { ply: k, total });
  setText($("replay-position"), ui.replay.ply === null ? t("{position} (current)", { position: at }) : at);
  $("replay-first", HTMLButtonElement).disabled = k === 0;
  $("replay-prev", HTMLButtonElement).disabled = k === 0;
  $("replay-next", HTMLButtonElement).disabled = k >= total;
  $("replay-last", HTMLButtonElement).disabled = k >= total;
  const evalBox = $("eval");
  const a = ui.replay;
  // Drawn again only when what it shows changed: a focused turning point keeps its focus.
  if (drawnAs(evalBox, [a.analysis, a.analysisState, a.analysisError, k, s.names, !!s.result, s.ai?.level])) return;
  const positions = a.analysis?.positions || [];
  const evaluated = positions.some((p) => typeof p.win_probability_player0 === "number");
  if (evaluated) {
    const current = Math.min(k, positions.length - 1);
    const here = positions[current];
    const pct = typeof here?.win_probability_player0 === "number" ? Math.round(here.win_probability_player0 * 100) : null;
    const judgements = a.analysis?.judgements || [];
    const judged = shownJudgement();
    fill(evalBox,
      evalGraph(positions, current, [nameOf(0), nameOf(1)], (ply) => choosePoint(ply), judgements),
      el("p", { class: "caption", "data-testid": "eval-caption" },
        pct === null ? "" : evalWords(current, pct, here, !judged)),
      a.analysis?.players ? playerTable(a.analysis.players) : null,
      judged ? judgementNote(judged) : null,
      a.analysis?.status === "done" ? playOn(here) : null,
      judgementList(judgements, judged));
  } else if (a.analysisState === "error") {
    fill(evalBox, el("p", { class: "message", "data-kind": "error" }, t("Analysis unavailable: {error}", { error: a.analysisError ?? "" })),
      el("button", { type: "button", onclick: () => loadAnalysis() }, t("Try again")));
  } else if (s.result && a.analysisState === "loading") {
    fill(evalBox, spinner(t("Analysing every position for the evaluation graph… (this can take a while)")));
  } else if (!s.result) {
    fill(evalBox, el("p", { class: "caption" }, t("The evaluation graph comes when the game is over.")));
  } else {
    fill(evalBox);
  }
}

/**
 * The caption under the graph: who is how likely to win at the position shown, and the best move there.
 * @param {number} ply @param {number} pct @param {AnalysedPosition} here @param {boolean} withBest
 */
function evalWords(ply, pct, here, withBest) {
  const values = { ply, name: nameOf(0), chance: number(pct / 100, { style: "percent" }) };
  let text = ply === 0 ? t("At the start: {name} {chance} to win", values) : t("After move {ply}: {name} {chance} to win", values);
  if (typeof here.expected_margin_player0 === "number") text += t(", expected margin {margin}", { margin: formatNumber(here.expected_margin_player0, { sign: true, digits: 1 }) });
  if (withBest && here.best_move && here.to_move !== null && here.to_move !== undefined) text += t("; best move for {name}: {move}", { name: nameOf(here.to_move), move: here.best_move });
  return `${text}.`;
}

/** @param {number} drop a share of the chance to win */
function percent(drop) {
  return number(Math.round(drop * 100) / 100, { style: "percent" });
}

/** @type {Record<string, string>} the analysis's labels, in words */
const LABELS = { inaccuracy: t("an inaccuracy"), mistake: t("a mistake"), blunder: t("a blunder") };

/** A judgement's two losses, the one that classed it first: "−7.5 points, −2%". @param {Judgement} j */
function losses(j) {
  const points = t("−{points} points", { points: formatNumber(j.points, { digits: 1 }) }); // with its decimal: "1.0 points"
  const chance = `−${percent(j.drop)}`;
  return j.by === "points" ? `${points}, ${chance}` : `${chance}, ${points}`;
}

/** At the position before a marked move: what was played, what it cost, what the analysis prefers (drawn on the board). @param {Judgement} j */
function judgementNote(j) {
  return el("p", { class: `judgement-note ${j.label}`, "data-testid": "judgement-note", role: "status" },
    el("strong", {}, `${t("Move {ply}, {label}:", { ply: j.ply, label: LABELS[j.label] ?? j.label })} `),
    `${t("{name} {played} ({move}), which cost {cost}.", { name: nameOf(j.player), played: j.played_summary, move: j.played, cost: j.cost })} `,
    t("The analysis would rather have {better} ({move})", { better: j.better_summary, move: j.better }),
    j.better_cells.length ? [": ", el("strong", {}, t("marked on the board."))] : ".");
}

/** Each player's accuracy, points lost a move and marked moves, as the server counted them. @param {readonly PlayerReview[]} players */
function playerTable(players) {
  /** @param {string} label @param {(p: PlayerReview) => string} cell */
  const row = (label, cell) => el("tr", {}, el("th", { scope: "row" }, label), players.map((p) => el("td", {}, cell(p))));
  return el("table", { class: "review-table", "data-testid": "review-table" },
    el("caption", { class: "visually-hidden" }, t("How each player played, by the analysis")),
    el("thead", {}, el("tr", {}, el("td", {}), players.map((p) => el("th", { scope: "col" }, nameOf(p.player))))),
    el("tbody", {},
      row(t("Accuracy"), (p) => number(Math.round(p.accuracy) / 100, { style: "percent" })),
      row(t("Points lost a move"), (p) => formatNumber(p.points_lost, { digits: 1 })),
      row(t("Inaccuracies, mistakes, blunders"), (p) => `${p.inaccuracies}, ${p.mistakes}, ${p.blunders}`)));
}

/**
 * The game's marked moves, both players', each a click away (the position before it, the better move drawn).
 * @param {readonly Judgement[]} judgements @param {Judgement | null} shown
 */
function judgementList(judgements, shown) {
  if (!judgements.length) return el("p", { class: "caption", "data-testid": "no-judgements" }, t("No move lost more than a little of the chance to win or of the points."));
  return el("div", { class: "judgements" },
    el("h3", { class: "judgements-title" }, t("Where the game turned")),
    el("ul", { class: "judgement-list", "data-testid": "judgements" },
      judgements.map((j) => el("li", { class: shown?.ply === j.ply ? "current" : null },
        el("button", {
          type: "button", class: `link-button judgement ${j.label}`, "data-testid": `judgement-${j.ply}`,
          "aria-current": shown?.ply === j.ply ? "true" : null,
          onclick: () => chooseJudgement(j),
        }, t("Move {ply}: {label} by {name}", { ply: j.ply, name: nameOf(j.player), label: LABELS[j.label] ?? j.label })),
        el("span", { class: "game-meta" }, ` ${losses(j)}`)))));
}

/** "What if": from the position shown, a game against the computer, this browser seated to move there. @param {AnalysedPosition | undefined} here */
function playOn(here) {
  const mover = here?.to_move;
  if (!here || mover === null || mover === undefined) return null;
  const level = ui.state?.ai?.level;
  return el("p", { class: "play-on" },
    el("button", {
      type: "button", "data-testid": "play-on",
      onclick: (/** @type {MouseEvent} */ event) => startPlayOn(here.ply, /** @type {HTMLButtonElement} */ (event.currentTarget)),
    }, t("Play on from here")),
    ` ${level ? t("as {name}, against quiltmaker {level}: a new game from this position, with hints.", { name: nameOf(mover), level })
      : t("as {name}, against the computer: a new game from this position, with hints.", { name: nameOf(mover) })}`);
}

/** @param {number} ply @param {HTMLButtonElement} button */
async function startPlayOn(ply, button) {
  button.disabled = true; // one game a click; the page is left when it is made
  try {
    const { body } = await api("/api/games", { json: { mode: "ai", from_game: ui.id, from_ply: ply } });
    const made = /** @type {import("./contract").SeatTaken} */ (body);
    const id = made.id ?? "";
    saveGame(id, { token: made.token, seat: made.seat, created: Date.now() });
    location.assign(`/game/${encodeURIComponent(id)}`);
  } catch (error) {
    button.disabled = false;
    say(t("Could not start the game from here: {error}", { error: errorText(error) }), "error");
  }
}

/**
 * A turning point chosen: the position before the move, its player's quilt drawn large (on a phone) with
 * the better move on it, and that quilt brought into view only if it is not there already.
 * @param {Judgement} j
 */
async function chooseJudgement(j) {
  update({ frontSeat: j.player });
  await setReplay(j.ply - 1);
  showChosen(j);
}

/** A point of the graph chosen: that position, and at a marked move its better move in view. @param {number} ply */
async function choosePoint(ply) {
  await setReplay(ply);
  const j = shownJudgement();
  if (j) {
    update({ frontSeat: j.player });
    showChosen(j);
  }
}

/**
 * Keep what was chosen in view, moving the page no more than that needs: the quilt with the better
 * move first, then the note that explains it, then the turning point clicked, as many of them as
 * the screen holds (all three beside each other on a desktop; on a phone the quilt and the note).
 * The focus stays on the turning point.
 * @param {Judgement} j
 */
function showChosen(j) {
  const chosen = document.querySelector(`[data-testid="judgement-${j.ply}"]`);
  if (chosen instanceof HTMLElement) chosen.focus({ preventScroll: true });
  const quilt = document.querySelector(`[data-testid="quilt-${j.player}"]`);
  const wanted = [quilt?.closest(".player") || quilt, document.querySelector("[data-testid=judgement-note]"), chosen];
  // Banners that lie over the top of the page (a phone's) hide what is under them.
  const banners = document.getElementById("banners");
  const inset = banners && getComputedStyle(banners).position === "fixed" ? Math.max(0, banners.getBoundingClientRect().bottom) : 0;
  const margin = 8; // a little room around what is shown, so that nothing ends on the screen's very edge
  const room = window.innerHeight - inset - 2 * margin;
  let top = Infinity;
  let bottom = -Infinity;
  for (const node of wanted) {
    if (!node) break;
    const box = node.getBoundingClientRect();
    if (Math.max(bottom, box.bottom) - Math.min(top, box.top) > room) break;
    top = Math.min(top, box.top);
    bottom = Math.max(bottom, box.bottom);
  }
  if (top === Infinity) {
    wanted[0]?.scrollIntoView({ block: "start", behavior: reducedMotion() ? "auto" : "smooth" }); // taller than the screen
    return;
  }
  const by = top < inset ? top - inset - margin : bottom > window.innerHeight ? bottom - window.innerHeight + margin : 0;
  if (by) window.scrollBy({ top: by, behavior: reducedMotion() ? "auto" : "smooth" });
}

/**
 * Keep `item` in view inside the scrolling list `list`, scrolling the list only (never the page, as
 * scrollIntoView would: the board must not move off the screen when a move is chosen).
 * @param {HTMLElement} list @param {Element | null} item
 */
export function keepInList(list, item) {
  if (!item) return;
  const inner = item.getBoundingClientRect();
  const outer = list.getBoundingClientRect();
  if (inner.top < outer.top) list.scrollTop -= outer.top - inner.top;
  else if (inner.bottom > outer.bottom) list.scrollTop += inner.bottom - outer.bottom;
}

/** Go to position `ply` (null or the last one: the live game). @param {number | null} ply */
export async function setReplay(ply) {
  const s = ui.state;
  if (!s) return;
  const total = (s.moves || []).length;
  if (ply !== null) ply = Math.max(0, Math.min(total, ply));
  if (ply === null || ply >= total) {
    changeReplay({ ply: null, want: undefined });
    return;
  }
  if (ui.hold) cancelHold(null);
  // Remember the wanted position at once, so quick key presses add up while
  // the record is still loading.
  changeReplay({ want: ply });
  const have = ui.replay.positions?.length ?? 0;
  if (have <= ply || (!s.result && have <= total)) {
    if (ui.replay.positionsLoading) return; // the load in flight goes to the latest wanted position
    const ok = await loadPositions();
    if (!ok) {
      changeReplay({ want: undefined });
      return;
    }
  }
  const want = ui.replay.want;
  const positions = ui.replay.positions;
  if (want === null || want === undefined || !positions) {
    changeReplay({ want: undefined });
    return;
  }
  changeReplay({ want: undefined, ply: Math.min(want, positions.length - 1) });
  if ((ui.replay.analysis?.positions?.length ?? 0) <= total && ui.replay.analysisState !== "loading") loadAnalysis();
}

/** @param {Partial<import("./page").ReplayState>} change */
function changeReplay(change) {
  update((page) => { page.replay = { ...page.replay, ...change }; });
}

async function loadPositions() {
  if (ui.replay.positionsLoading) return false;
  changeReplay({ positionsLoading: true });
  try {
    const { body } = await api(`/api/games/${encodeURIComponent(ui.id)}/positions`);
    changeReplay({ positions: /** @type {import("./contract").Replay} */ (body).positions, positionsLoading: false });
    return true;
  } catch (error) {
    changeReplay({ positionsLoading: false });
    say(t("Could not load the game's positions: {error}", { error: errorText(error) }), "error");
    return false;
  }
}

/**
 * Fetch the analysis. While the server computes it (202), the reply already
 * has every position's times and buttons, which the replay uses at once;
 * the evaluations follow. Finished games poll until they come; a game still
 * in play is fetched once (its analysis changes with every move).
 */
export async function loadAnalysis() {
  if (ui.replay.analysisState === "loading") return;
  const poll = !!ui.state?.result;
  changeReplay({ analysisState: "loading" });
  const started = Date.now();
  try {
    for (;;) {
      const { status, body } = await api(`/api/games/${encodeURIComponent(ui.id)}/analysis`);
      const analysis = /** @type {import("./contract").Analysis} */ (body);
      if (analysis && Array.isArray(analysis.positions)) changeReplay({ analysis });
      if (status !== 202 || !poll) break;
      if (Date.now() - started > 5 * 60 * 1000) throw new Error(t("it is taking too long; try again later"));
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    changeReplay({ analysisState: "done" });
  } catch (error) {
    changeReplay({ analysisState: "error", analysisError: errorText(error) });
  }
}
