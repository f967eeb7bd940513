// @ts-check
// Going back through a game: past positions as the server drew them
// (GET /api/games/{id}/positions), and the analysis with its evaluation graph.
import { $, api, el, errorText, fill, formatNumber, setText } from "./common.js";
import { evalGraph, spinner } from "./graph.js";
import { nameOf, replayAvailable, shownJudgement, ui, update } from "./store.js";
import { say } from "./notices.js";
import { cancelHold } from "./hand.js";

/** @typedef {import("./contract").Judgement} Judgement */

// ---------------------------------------------------------------- replay

export function renderReplay() {
  const box = $("replay");
  const s = ui.state;
  box.hidden = !replayAvailable();
  if (box.hidden || !s) return; // available only with a state
  const total = (s.moves || []).length;
  const k = ui.replay.ply === null ? total : ui.replay.ply;
  setText($("replay-position"), `${k === 0 ? "start" : `move ${k}`} of ${total}${ui.replay.ply === null ? " (current)" : ""}`);
  $("replay-first", HTMLButtonElement).disabled = k === 0;
  $("replay-prev", HTMLButtonElement).disabled = k === 0;
  $("replay-next", HTMLButtonElement).disabled = k >= total;
  $("replay-last", HTMLButtonElement).disabled = k >= total;
  const evalBox = $("eval");
  const a = ui.replay;
  const positions = a.analysis?.positions || [];
  const evaluated = positions.some((p) => typeof p.win_probability_player0 === "number");
  if (evaluated) {
    const current = Math.min(k, positions.length - 1);
    const here = positions[current];
    const pct = typeof here?.win_probability_player0 === "number" ? Math.round(here.win_probability_player0 * 100) : null;
    const judgements = a.analysis?.judgements || [];
    const judged = shownJudgement();
    fill(evalBox,
      evalGraph(positions, current, [nameOf(0), nameOf(1)], (ply) => setReplay(ply), judgements),
      el("p", { class: "caption", "data-testid": "eval-caption" },
        pct === null ? "" : `${current === 0 ? "At the start" : `After move ${current}`}: ${nameOf(0)} ${pct}% to win` +
          (typeof here.expected_margin_player0 === "number" ? `, expected margin ${formatNumber(here.expected_margin_player0, { sign: true, digits: 1 })}` : "") +
          (here.best_move && here.to_move !== null && here.to_move !== undefined && !judged ? `; best move for ${nameOf(here.to_move)}: ${here.best_move}` : "") + "."),
      judged ? judgementNote(judged) : null,
      judgementList(judgements));
  } else if (a.analysisState === "error") {
    fill(evalBox, el("p", { class: "message", "data-kind": "error" }, `Analysis unavailable: ${a.analysisError}`),
      el("button", { type: "button", onclick: () => loadAnalysis() }, "Try again"));
  } else if (s.result && a.analysisState === "loading") {
    fill(evalBox, spinner("Analysing every position for the evaluation graph… (this can take a while)"));
  } else if (!s.result) {
    fill(evalBox, el("p", { class: "caption" }, "The evaluation graph comes when the game is over."));
  } else {
    fill(evalBox);
  }
}

/** @param {number} drop a share of the chance to win */
function percent(drop) {
  return `${Math.round(drop * 100)}%`;
}

/** At the position before a marked move: what was played, what the analysis prefers (drawn on the board). @param {Judgement} j */
function judgementNote(j) {
  return el("p", { class: `judgement-note ${j.label}`, "data-testid": "judgement-note", role: "status" },
    el("strong", {}, `Move ${j.ply}, a ${j.label}: `),
    `${nameOf(j.player)} ${j.played_summary} (${j.played}), which cost ${percent(j.drop)} of the chance to win. `,
    `The analysis would rather have ${j.better_summary} (${j.better})`,
    j.better_cells.length ? [": ", el("strong", {}, "marked on the board.")] : ".");
}

/** The game's turning points: each marked move, a click away (the position before it). @param {readonly Judgement[]} judgements */
function judgementList(judgements) {
  if (!judgements.length) return el("p", { class: "caption", "data-testid": "no-judgements" }, "No move lost more than a small part of the chance to win.");
  return el("div", { class: "judgements" },
    el("h3", { class: "judgements-title" }, "Turning points"),
    el("ul", { class: "judgement-list", "data-testid": "judgements" },
      judgements.map((j) => el("li", {},
        el("button", {
          type: "button", class: `link-button judgement ${j.label}`, "data-testid": `judgement-${j.ply}`,
          onclick: () => setReplay(j.ply - 1),
        }, `Move ${j.ply}: ${nameOf(j.player)}'s ${j.label}`),
        el("span", { class: "game-meta" }, ` −${percent(j.drop)}`)))));
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
    say(`Could not load the game's positions: ${errorText(error)}`, "error");
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
      if (Date.now() - started > 5 * 60 * 1000) throw new Error("it is taking too long; try again later");
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    changeReplay({ analysisState: "done" });
  } catch (error) {
    changeReplay({ analysisState: "error", analysisError: errorText(error) });
  }
}
