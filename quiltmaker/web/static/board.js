// @ts-check
// The board: the time track, the circle of patches, each player's panel and
// quilt, and what lies over a quilt (the ghost, the hint's squares, the cursor).
import { $, drawnAs, el, fill, findAll, formatNumber, icon, SEAT_COLOURS, shapeNode, tokenBadge } from "./common.js";
import { listed, t, tn } from "./i18n.js";
import { buildQuilt, cellsOverlay, paintQuilt } from "./quilt.js";
import { arriving, bonusArea, buyEntry, canAct, canPlace, isAiSeat, isMine, legal, nameOf, shownJudgement, specialsPending, ui, update, view } from "./store.js";
import { ghostNode } from "./hand.js";
import { clockBadge } from "./clock.js";

/** The position drawn (store.js's view()): the live game's, or a replayed one. @typedef {NonNullable<ReturnType<typeof view>>} View */

// ---------------------------------------------------------------- time track

/** @param {View | null} v */
export function renderTrack(v) {
  const track = $("track");
  const s = ui.state;
  if (!v || !ui.catalogue) return;
  const { analysed: _, ...shown } = v;
  if (drawnAs(track, [shown, v.live && arriving(), s?.names, s?.variant, ui.seat, ui.replay.analysisState])) return;
  const last = ui.catalogue.last_space;
  track.setAttribute("aria-label", t("Time track, spaces 0 to {last}", { last }));
  const variant = s?.variant || ui.catalogue.default_variant;
  const income = new Set(s?.income_spaces || ui.catalogue.tracks?.[variant]?.income_spaces || []);
  const specials = new Set(v.specials || []);
  const [low, high] = v.times ? [Math.min(...v.times), Math.max(...v.times)] : [0, 0];
  const cells = [];
  for (let space = 0; space <= last; space++) {
    const here = v.times ? [0, 1].filter((p) => v.times[p] === space) : [];
    // With both tokens on one space, the one on top is drawn last (above).
    if (here.length === 2 && v.on_top === 0) here.reverse();
    const tokens = here.map((p) => {
      const top = here.length === 2 && p === v.on_top;
      const moved = v.live && arriving() && v.last_move?.player === p;
      return el("span", { class: `track-token token token-${p}${top ? " on-top" : ""}${moved ? " arriving" : ""}`, title: top ? t("{name} (on top)", { name: nameOf(p) }) : nameOf(p), "data-testid": `token-${p}` }, String(p));
    });
    const parts = [];
    if (income.has(space)) parts.push(t("button income"));
    if (specials.has(space)) parts.push(t("special patch"));
    for (const p of here) parts.push(here.length === 2 && p === v.on_top ? t("token of {name} (on top)", { name: nameOf(p) }) : t("token of {name}", { name: nameOf(p) }));
    cells.push(
      el("div", {
        class: `track-space${income.has(space) ? " income" : ""}${specials.has(space) ? " has-special" : ""}${space % 10 === 0 ? " tens" : ""}${space > low && space < high ? " between" : ""}`,
        role: "listitem",
        "data-space": space,
        "aria-label": parts.length ? t("space {space}: {what}", { space, what: listed(parts) }) : t("space {space}", { space }),
      },
      el("span", { class: "space-number" }, String(space)),
      el("span", { class: "space-marks", "aria-hidden": "true" },
        income.has(space) ? el("span", { class: "mark-income", title: t("button income") }, "◉") : null,
        specials.has(space) ? el("span", { class: "mark-special", title: t("special patch") }, "■") : null),
      el("span", { class: `space-tokens${here.length === 2 ? " stacked" : ""}` }, tokens)),
    );
  }
  fill(track, cells);
  const caption = $("track-caption");
  if (v.times) {
    // Where each token is (a phone's sheet leaves that to the drawing), and who is on top of a shared space.
    const shared = v.shared_space;
    const top = shared ? { name: nameOf(shared.on_top) } : {};
    fill(caption,
      el("span", { class: "caption-where" }, t("{first} (0) on space {space0}, {second} (1) on space {space1}.", { first: nameOf(0), second: nameOf(1), space0: v.times[0], space1: v.times[1] })),
      shared ? ` ${sameSpace(shared.on_top === ui.seat, shared.moves_first, top)}` : null);
  } else if (!v.live) {
    caption.textContent = ui.replay.analysisState === "loading" ? t("Times of past positions are being computed…") : t("Times of past positions come with the analysis at the end of the game.");
  } else {
    caption.textContent = "";
  }
}

/** Who is on top of a shared space, and whether they move first for it. @param {boolean} mine @param {boolean} first @param {{ name?: string }} top */
function sameSpace(mine, first, top) {
  if (mine) return first ? t("Same space: your token is on top and moves first.") : t("Same space: your token is on top.");
  return first ? t("Same space: the token of {name} is on top and moves first.", top) : t("Same space: the token of {name} is on top.", top);
}

// ---------------------------------------------------------------- the patch circle

/** @param {import("./contract").CataloguePatch} patch */
function patchFacts(patch) {
  const buttons = tn("{n} button", "{n} buttons", patch.cost);
  const squares = tn("{n} square", "{n} squares", patch.size ?? patch.orientations[0].cells.length);
  return t("costs {buttons}, {time} time, income {income}, {squares}", { buttons, time: patch.time, income: patch.income, squares });
}

/** @param {View | null} v */
export function renderCircle(v) {
  const box = $("circle");
  if (!v || !ui.catalogue) return;
  const offered = new Set(v.offered || []);
  const acting = v.live && canAct() && !specialsPending();
  // Rebuild only when something shown changed: replacing the offer under a
  // finger would break its touch drag (the pointer is captured by that element).
  const judged = v.live ? null : shownJudgement();
  const key = JSON.stringify([v.circle, v.offered, acting, v.live && canAct(), v.live && legal().buys, ui.state?.version, v.ply, ui.hint?.best_move_patch, judged?.better_patch]);
  if (key === box.dataset.key && box.childElementCount) {
    for (const node of findAll(".offer", box)) {
      const held = !!ui.hold && ui.hold.patch === Number(node.dataset.patch);
      node.classList.toggle("held", held);
      node.setAttribute("aria-pressed", held ? "true" : "false");
    }
    return;
  }
  box.dataset.key = key; // what the circle shows, kept by the circle itself
  const items = (v.circle || []).map((id, index) => {
    const patch = ui.patches.get(id);
    if (!patch) return el("span", { class: "circle-item" }, `#${id}`);
    const isOffered = offered.has(id);
    const facts = el("span", { class: "facts", "aria-hidden": "true" },
      el("span", { class: "fact cost", title: t("cost in buttons") }, `${patch.cost}◉`),
      el("span", { class: "fact time", title: t("time") }, `${patch.time}`, icon("time")),
      el("span", { class: `fact income${patch.income ? "" : " none"}`, title: t("button income") }, `+${patch.income}`));
    if (!isOffered) {
      return el("span", { class: "circle-item", "data-patch": id, role: "img", "aria-label": t("patch {id}, {place} in the circle: {facts}", { id, place: index + 1, facts: patchFacts(patch) }) },
        el("span", { class: "patch-number" }, `#${id}`), shapeNode(id, patch.orientations[0].cells, "var(--circle-cell, 8px)"), facts);
    }
    const buy = v.live ? buyEntry(id) : null;
    // Pickable: affordable and placeable somewhere (the server lists the anchors).
    const affordable = acting && buy && buy.affordable && canPlace(buy);
    const reason = v.live && buy && !(buy.affordable && canPlace(buy)) ? buy.reason || t("cannot be bought now") : "";
    const held = ui.hold && ui.hold.patch === id;
    // The hint's patch, or in the replay of a marked move the patch of the better move.
    const hinted = (v.live && !!ui.hint && ui.hint.version === ui.state?.version && ui.hint.best_move_patch === id) || judged?.better_patch === id;
    // The name is the button's own text (what a screen reader says is what is shown, in words):
    // the facts in words, hidden from sight; the facts as drawn, hidden from the reader.
    const label = `${t("Patch {id} on offer: {facts}.", { id, facts: patchFacts(patch) })} ` +
      (affordable ? t("Press Enter to pick it up.") : reason ? t("Cannot buy:") : acting ? "" :
        v.live && canAct() && specialsPending() ? t("Place your special patch first.") : t("Not your turn."));
    return el("button", {
      type: "button",
      class: `circle-item offer${affordable ? " affordable" : ""}${held ? " held" : ""}${reason ? " unaffordable" : ""}${hinted ? " hinted" : ""}`,
      "data-testid": `offer-${id}`,
      "data-patch": id,
      "data-focus-key": `offer-${id}`,
      "data-affordable": affordable ? "true" : "false",
      "aria-disabled": affordable ? "false" : "true",
      "aria-pressed": held ? "true" : "false",
      title: reason || (affordable ? t("Pick up, then place it on your quilt") : ""),
    },
    el("span", { class: "visually-hidden" }, label),
    el("span", { class: "patch-number", "aria-hidden": "true" }, `#${id}`),
    shapeNode(id, patch.orientations[0].cells, "var(--offer-cell, 13px)"),
    facts,
    reason ? el("span", { class: "reason" }, ` ${reason}.`) : null);
  });
  if (!items.length) items.push(el("p", { class: "caption" }, t("The circle is empty.")));
  // The neutral token stands where the last patch was taken: the offer starts after it.
  const bought = v.last_move?.kind === "buy" ? v.last_move : null;
  const where = bought
    ? t("The neutral token: {name} took patch {patch} from here", { name: nameOf(bought.player), patch: bought.patch })
    : t("The neutral token: the patches on offer start after it");
  items.unshift(el("span", { class: "neutral-token", role: "img", "data-testid": "neutral-token", title: where, "aria-label": `${where}.` },
    bought ? el("span", { class: "neutral-taken", "aria-hidden": "true" }, t("took #{patch}", { patch: bought.patch })) : null));
  fill(box, items);
}

// ---------------------------------------------------------------- players and quilts

/** Build the panel and quilt of `seat` (0 or 1), once the catalogue has come. @param {number} seat */
export function buildPlayerPanel(seat) {
  const panel = $(`player-${seat}`);
  const head = el("header", { class: "player-head" });
  const stats = el("dl", { class: "stats" });
  panel.append(head, stats);
  // A tap anywhere on the small quilt shows it large (its board takes no pointer there).
  panel.addEventListener("click", () => { if (!panel.classList.contains("front")) update({ frontSeat: seat }); });
  const quilt = buildQuilt(panel, /** @type {0 | 1} */ (seat));
  update((page) => { page.quilts[seat] = { ...quilt, head, stats, panel }; });
}

/** A score as players read it (−147), or nothing yet. @param {number | null | undefined} value */
function score(value) {
  return typeof value === "number" ? formatNumber(value) : value;
}

/**
 * A term and its value (a dash when there is none yet) for a player's stats.
 * @param {string} label @param {string | number | null | undefined} value @param {string} testid @param {string} title
 */
function stat(label, value, testid, title) {
  // A name and its value kept together (a phone's sheet wraps the pairs, and leaves some out).
  return el("div", { class: `stat stat-${testid.split("-")[0]}` },
    el("dt", { title }, label), el("dd", { "data-testid": testid }, value === null || value === undefined ? "–" : String(value)));
}

/** @param {View | null} v */
export function renderPlayers(v) {
  const s = ui.state;
  const catalogue = ui.catalogue;
  const { analysed: _, ...shown } = v ?? {};
  const inputs = [shown, s && [s.version, s.status, s.result?.winner, s.mode, s.presence, s.bonus, s.ai, s.names, !!s.clock], ui.seat, canAct(), specialsPending(), !!ui.hold, ui.frontSeat];
  for (const seat of [0, 1]) {
    const q = ui.quilts[seat];
    if (drawnAs(q.panel, inputs)) continue;
    const grid = v?.quilts?.[seat];
    paintQuilt(q, grid);
    // With a state there is a view, and the catalogue came before the state.
    if (!s || !v || !catalogue) continue;
    const toMove = v.to_move === seat && s.status !== "over";
    q.panel.classList.toggle("to-move", toMove);
    // This browser's quilt (in pass-and-play, the one of the player to move; for a
    // spectator, the one to move): drawn large on a phone, unless the other was tapped.
    const mine = ui.seat === seat || (typeof ui.seat !== "number" && (toMove || (!!s.result && seat === 0)));
    q.panel.classList.toggle("mine", mine);
    q.panel.classList.toggle("front", ui.hold ? s.to_move === seat : ui.frontSeat === null ? mine : ui.frontSeat === seat);
    q.panel.style.setProperty("--seat-colour", SEAT_COLOURS[seat]);
    const tags = [];
    if (isAiSeat(seat)) tags.push(el("span", { class: "tag" }, t("computer")));
    else if (ui.seat === seat) tags.push(el("span", { class: "tag you" }, t("you")));
    // Online, a seat no account holds is a guest's: its name, whatever it looks like, is no account's.
    if (s.mode === "online" && s.status !== "waiting" && !isAiSeat(seat) && !s.accounts[seat]) {
      tags.push(el("span", { class: "tag guest", "data-testid": `guest-${seat}` }, t("guest")));
    }
    if (toMove) tags.push(el("span", { class: "tag move" }, t("to move")));
    // Online, the other player's presence: is their page open now?
    if (s.mode === "online" && !isMine(seat) && s.status !== "waiting" && !s.result) {
      const here = !!s.presence?.[seat];
      tags.push(el("span", { class: `tag presence ${here ? "here" : "away"}`, "data-testid": `presence-${seat}` }, here ? `● ${t("here")}` : `○ ${t("away")}`));
    }
    if (v.live && s.bonus === seat) tags.push(el("span", { class: "tag bonus", title: t("completed a {area} area first", { area: bonusArea() }) }, t("{area} bonus +{points}", { area: bonusArea(), points: catalogue.bonus_points })));
    // On a phone the small quilt is one tap away from large (the sheet shows this button there only).
    const enlarge = el("button", { type: "button", class: "link-button quilt-swap", "data-testid": `enlarge-${seat}`,
      "aria-label": t("Show the quilt of {name} large", { name: nameOf(seat) }), onclick: () => update({ frontSeat: seat }) }, "⤢");
    fill(q.head, tokenBadge(seat), el("h2", { class: "player-name" }, nameOf(seat)), tags, clockBadge(seat), enlarge);
    const rows = v.score_breakdown?.[seat];
    fill(q.stats,
      stat(t("Buttons"), v.buttons?.[seat], `buttons-${seat}`, t("buttons held: money now, points at the end")),
      stat(t("Income"), v.income?.[seat], `income-${seat}`, t("buttons paid each time you cross a button-income space")),
      stat(t("Space"), v.times?.[seat], `space-${seat}`, t("position on the time track")),
      stat(t("Empty"), rows ? `${rows.empty} (${formatNumber(rows.penalty)})` : null, `empty-${seat}`, t("empty squares, {points} points each at the end", { points: catalogue.empty_square_penalty })),
      stat(t("Score now"), score(v.scores?.[seat]), `score-${seat}`, t("the score if the game ended now: buttons, minus the empty squares")),
      stat(t("Forecast"), score(v.forecast?.[seat]), `forecast-${seat}`, t("the score if this player only advanced from now on, collecting income")),
      // The server's score and what it is made of, in words, so that "−157" at the start explains itself.
      rows ? scoreWords(seat, rows) : null,
    );
    const acting = v.live && canAct() && s.to_move === seat;
    q.board.classList.toggle("acting", acting);
    q.board.classList.toggle("placing-special", acting && specialsPending());
    q.board.tabIndex = acting || ui.seat === seat ? 0 : -1;
    q.board.setAttribute("aria-label", boardLabel(seat, acting));
  }
}

/** @param {number} seat @param {import("./contract").ScoreRows} part */
function scoreWords(seat, part) {
  const values = { buttons: tn("{n} button", "{n} buttons", part.buttons), penalty: -part.penalty, empty: tn("{n} empty square", "{n} empty squares", part.empty), bonus: part.bonus, total: score(part.total) };
  // A group of its own (a hidden term and its words), as a description list allows only dt/dd groups.
  return el("div", { class: "stat stat-explained" },
    el("dt", { class: "visually-hidden" }, t("Score in words")),
    el("dd", { class: "score-explained", "data-testid": `score-explained-${seat}` },
      part.bonus
        ? t("Score now: {buttons} − {penalty} for {empty} + {bonus} bonus = {total}", values)
        : t("Score now: {buttons} − {penalty} for {empty} = {total}", values)));
}

/** @param {number} seat @param {boolean} acting */
function boardLabel(seat, acting) {
  const name = nameOf(seat);
  if (acting && ui.hold) return t("Quilt of {name}: arrow keys move the patch, R turns, F flips, Enter places, Escape cancels", { name });
  if (acting && specialsPending()) return t("Quilt of {name}: place your special patch; arrow keys choose a square, Enter places it", { name });
  return t("Quilt of {name}", { name });
}

export function renderOverlays() {
  const last = view()?.last_move;
  for (const seat of [0, 1]) {
    const q = ui.quilts[seat];
    /** @type {(HTMLElement | null)[]} */
    const parts = [];
    const s = ui.state;
    const live = ui.replay.ply === null;
    // The last move stays marked on its quilt until the next one.
    if (last && last.player === seat && last.cells.length) {
      parts.push(cellsOverlay(last.cells, `last-move-mark${live && arriving() ? " arriving" : ""}`, { "data-testid": `last-move-${seat}` }));
    }
    // The replay at a marked move: the better move's squares on its player's quilt.
    const judged = shownJudgement();
    if (!live && judged && judged.player === seat && judged.better_cells.length) {
      parts.push(cellsOverlay(judged.better_cells, "better-mark", { "data-testid": "better-mark" }));
    }
    // A puzzle answered: the best move's squares on the solver's side's quilt.
    const answer = live ? s?.puzzle?.answer : null;
    if (answer && s?.puzzle?.seat === seat && answer.best_cells.length) parts.push(cellsOverlay(answer.best_cells, "puzzle-mark", { "data-testid": "puzzle-mark" }));
    // A lesson's marked squares: the learner's quilt, where the lesson asks for a patch.
    if (live && s?.lesson?.marks?.length && seat === 0) parts.push(cellsOverlay(s.lesson.marks, "lesson-mark", { "data-testid": "lesson-mark" }));
    if (live && s && ui.hint && ui.hint.version === s.version && s.to_move === seat) {
      const cells = ui.hint.best_move_cells;
      if (cells?.length) parts.push(cellsOverlay(cells, "hint-mark", { "data-testid": "hint-mark" }));
    }
    if (live && ui.hold && s && s.to_move === seat) parts.push(ghostNode());
    if (live && ui.cursor && s && s.to_move === seat && specialsPending()) {
      parts.push(cellsOverlay([[ui.cursor.row, ui.cursor.col]], "cursor-mark", { "data-testid": "special-cursor" }));
    }
    fill(q.overlay, parts);
  }
}
