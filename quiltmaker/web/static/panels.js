// @ts-check
// Everything around the board (the header, banners, whose turn, the action
// buttons, the hint, links, the final score, the move list, the help) and
// drawAll(), which draws the whole page from the store.
import { $, drawnAs, el, fill, find, formatNumber, setText, tokenBadge, withBold } from "./common.js";
import { number, t, tn } from "./i18n.js";
import { bonusArea, canAct, confirmsMoves, legal, nameOf, replayAvailable, specialsPending, squareName, storedEntry, touchScreen, ui, update, view } from "./store.js";
import { sendIntent } from "./intents.js";
import { holdIsLegal, holdOrientation } from "./hand.js";
import { renderCircle, renderOverlays, renderPlayers, renderTrack } from "./board.js";
import { keepInList, renderReplay, setReplay } from "./review.js";
import { renderLesson } from "./lesson-panel.js";
import { renderPuzzle } from "./puzzle-panel.js";
import { renderAttention } from "./attention.js";
import { renderChat } from "./chat.js";

/** @typedef {import("./board.js").View} View */

export function drawAll() {
  const v = view();
  keepFocus(() => {
    renderHeader();
    renderLesson();
    renderPuzzle();
    renderBanners();
    renderTrack(v);
    renderCircle(v);
    renderPlayers(v);
    renderTurn(v);
    renderLastMove();
    renderActions();
    renderHintBox();
    renderLinks();
    renderResult();
    renderReplay();
    renderMoves();
    renderChat();
    renderOverlays();
  });
  renderAttention();
}

/** Re-rendering replaces buttons; put keyboard focus back on their successor. @param {() => void} draw */
function keepFocus(draw) {
  const active = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  // Only a keyboard user's focus is carried over: a pointer user never asked for a focus ring.
  const key = active && active !== document.body && active.matches(":focus-visible") ? active.dataset.focusKey || active.id : null;
  draw();
  if (key && !document.contains(active)) {
    let next = find(`[data-focus-key="${CSS.escape(key)}"]`) || document.getElementById(key);
    // The focused patch was bought: move to the patches now on offer.
    if (!next && key.startsWith("offer-")) next = find(".offer");
    if (next) next.focus({ preventScroll: true });
  }
}

function renderHeader() {
  const s = ui.state;
  setText($("version"), s ? `v${s.version}` : "");
  if (!s || drawnAs($("game-title"), [s.names, s.mode, s.lesson?.number, s.puzzle?.rating, s.ai?.level, s.clock?.words, s.rating?.family, s.variant, ui.seat])) return;
  if (s.puzzle) {
    fill($("game-title"), el("strong", {}, t("Puzzle · rated {rating}", { rating: s.puzzle.rating })), el("span", { class: "title-extra" }, ` · ${t("{name} to find the move", { name: nameOf(s.puzzle.seat) })}`));
    return;
  }
  if (s.lesson) {
    fill($("game-title"), el("strong", {}, t("Learn to play · lesson {number} of {count}", { number: s.lesson.number, count: s.lesson.count })), ` · ${t("{learner} against {tutor}", { learner: nameOf(0), tutor: nameOf(1) })}`);
    return;
  }
  /** @type {Record<string, string>} a lesson's title is drawn above */
  const modes = { ai: t("against quiltmaker {level}", { level: s.ai?.level ?? "" }).trim(), local: t("pass-and-play"), online: t("online") };
  const seat = ui.seat === "both" ? t("you play both seats") : ui.seat === null ? t("you are watching") : ui.seat === undefined ? "" : t("you play as {name}", { name: nameOf(ui.seat) });
  const rated = s.rating ? (s.rating.family === "correspondence" ? t("rated (correspondence)") : t("rated (real-time)")) : "";
  const track = s.variant === "original" ? t("original track") : t("revised track");
  fill(
    $("game-title"),
    el("strong", {}, t("{first} vs {second}", { first: nameOf(0), second: nameOf(1) })),
    el("span", { class: "title-extra" }, ` · ${[modes[s.mode] || s.mode, s.clock?.words, rated, track, seat].filter(Boolean).join(" · ")}`),
  );
}

/** Why a rated game rated nobody (the server's rules: quiltmaker/web/rating/fairness.py), in words. */
const UNRATED_WORDS = () => ({
  moves: t("Not rated: a side never moved."),
  address: t("Not rated: the two players were seen from one address."),
  pair: t("Not rated: the two players have had their rated games together for today."),
  computer_time: t("Not rated: the computer ran out of time."),
});

/** A rated game's result: each person's rating before and after, as the server settled it. @param {Readonly<import("./contract").GameState>} s */
function ratingChanges(s) {
  const changes = s.rating?.changes;
  if (s.rating?.unrated) return el("p", { class: "hint-text", "data-testid": "rating-changes" }, UNRATED_WORDS()[s.rating.unrated]);
  if (!changes || !changes.some((c) => c)) return s.rating && !s.rating.settled ? el("p", { class: "hint-text" }, t("Rating the game…")) : null;
  return el("p", { class: "rating-changes", "data-testid": "rating-changes" },
    [0, 1].filter((seat) => changes[seat]).flatMap((seat, index) => {
      const [before, after] = /** @type {[number, number]} kept by the filter */ (changes[seat]);
      const delta = after - before;
      return [index ? " · " : "", `${nameOf(seat)} ${before} → ${after} `, el("span", { class: `rating-change ${delta >= 0 ? "up" : "down"}` }, `(${delta >= 0 ? "+" : "−"}${Math.abs(delta)})`)];
    }));
}

function renderBanners() {
  const s = ui.state;
  // A live region: drawn again only when a banner changes, so a screen reader does not repeat it on every key.
  if (drawnAs($("banners"), [ui.replay.ply, s?.moves.length, s?.pending, s?.to_move, !!s?.result, specialsPending(), ui.banners, s?.names])) return;
  const items = [];
  if (s && ui.replay.ply !== null) {
    items.push(
      el("div", { class: "banner replay-banner", "data-testid": "replay-banner" },
        `${ui.replay.ply === 0 ? tn("Replay: the start of the game, before the first of {n} move.", "Replay: the start of the game, before the first of {n} moves.", (s.moves || []).length)
          : t("Replay: the position after move {ply} of {count}.", { ply: ui.replay.ply, count: (s.moves || []).length })} `,
        el("button", { type: "button", class: "link-button", onclick: () => setReplay(null) }, t("Back to the game"))),
    );
  } else if (s && s.pending > 0 && s.status !== "over") { // (over: played out, resigned, on time, or a puzzle answered)
    if (specialsPending()) {
      items.push(el("div", { class: "banner special-banner", "data-testid": "special-banner", role: "alert" },
        el("strong", {}, t("You earned a special patch: place it.")),
        ` ${touchScreen() ? t("Tap any empty square of your quilt.") : t("Click any empty square of your quilt (or focus your quilt, move with the arrow keys and press Enter).")}`));
    } else {
      items.push(el("div", { class: "banner special-banner", "data-testid": "special-banner" },
        t("{name} earned a special 1x1 patch and is placing it.", { name: nameOf(s.to_move) })));
    }
  }
  for (const b of ui.banners) items.push(el("div", { class: `banner ${b.kind}-banner`, "data-testid": `${b.kind}-banner` }, b.text));
  fill($("banners"), items);
}

// ---------------------------------------------------------------- whose turn

/** @param {View | null} v */
function renderTurn(v) {
  const s = ui.state;
  const node = $("turn");
  // The turn box is a live region: redraw it only when it says something new,
  // so a screen reader does not repeat it after every message.
  const key = JSON.stringify([s?.version, s?.status, v?.live, ui.seat, ui.connection === "open", s?.ai?.thinking, s?.lesson?.done, s?.claimable_by]);
  if (key === node.dataset.key) return;
  node.dataset.key = key;
  if (!s || !v) { // with a state there is always a view
    node.textContent = ui.connection === "open" ? t("Waiting for the game…") : t("Connecting to the game…");
    return;
  }
  if (s.puzzle?.answer) { // (a puzzle's answer may end the game too: the puzzle is what is said)
    const a = s.puzzle.answer;
    fill(node, el("p", { class: "turn-main" }, a.solved ? t("Puzzle solved.") : t("Puzzle missed.")),
      el("p", { class: "turn-reason" }, a.solved ? t("Your move {outcome}.", { outcome: a.played_outcome }) : t("The move that wins: {move}.", { move: a.best_words })));
  } else if (s.result) {
    const w = s.result.winner;
    const names = { name: ui.seat === w ? t("{name} (you)", { name: nameOf(w) }) : nameOf(w), loser: nameOf(1 - w) };
    const words = s.result.by === "resignation" ? t("Game over: {name} wins: {loser} resigned.", names)
      : s.result.by === "time" ? t("Game over: {name} wins on time: {loser} ran out of time.", names)
      : s.result.by === "claim" ? t("Game over: {name} wins: {loser} went past the days for a move.", names) : t("Game over: {name} wins.", names);
    fill(node, el("p", { class: "turn-main" }, tokenBadge(w), ` ${words}`));
  } else if (s.lesson?.done) {
    fill(node, el("p", { class: "turn-main" }, t("This lesson is done.")), el("p", { class: "turn-reason" },
      s.lesson.next ? t("Go on to the next lesson, or start this one again.") : t("That was the last lesson: play the computer, or start this one again.")));
  } else if (s.status === "aborted") {
    fill(node, el("p", { class: "turn-main" }, t("The game was aborted before both sides had moved: no result.")));
  } else if (s.status === "waiting") {
    const words = s.offer?.kind === "open"
      ? t("Your challenge is in the lobby: waiting for someone to accept it (the invitation link works too).")
      : s.offer?.kind === "named" ? t("Waiting for {name} to accept your challenge in the lobby.", { name: s.offer.for ?? "" }) : t("Waiting for your friend to open the invitation.");
    fill(node, el("p", { class: "turn-main" }, words));
  } else if (!v.live) {
    fill(node, el("p", { class: "turn-main" }, t("Replaying a past position.")), el("p", { class: "turn-reason" }, t("Go to the last move to play on.")));
  } else {
    const p = s.to_move;
    const who = canAct() ? (ui.seat === "both" ? t("Turn of {name}", { name: nameOf(p) }) : t("Your turn")) : t("{name} to move", { name: nameOf(p) });
    fill(node,
      el("p", { class: "turn-main" }, p === null ? null : tokenBadge(p), ` ${who}`), // a game being played: someone is to move
      s.turn_reason ? el("p", { class: "turn-reason" }, t("Why: {reason}.", { reason: s.turn_reason }).replace(/\.\.$/, ".")) : null,
      ui.seat === null ? el("p", { class: "turn-reason" }, t("You are watching this game.")) : null,
      s.claimable_by !== null && s.claimable_by !== undefined && s.claimable_by === ui.seat && s.clock // claimable: a clock ran out
        ? el("p", { class: "turn-reason", "data-testid": "claimable" }, t("{name} is past their time ({clock}): you may claim the win, or wait for the move.", { name: nameOf(p), clock: s.clock.words }))
        : null);
  }
  // Also while it is simply the computer's turn: a page that connects before
  // the server has started the computer's search gets thinking: false.
  // The tab's title says when it is your turn, for a game left in the background.
  const players = t("{first} vs {second}", { first: nameOf(0), second: nameOf(1) });
  document.title = `${canAct() ? `● ${t("Your turn")} · ` : s.result ? `${t("Game over")} · ` : ""}${players} · quiltmaker`;
  const thinking = !!s.ai && !s.result && (!!s.ai.thinking || (s.status === "playing" && s.to_move === s.ai.seat && s.ai.plays !== false));
  const ai = $("ai-thinking");
  ai.hidden = !thinking;
  if (thinking) fill(ai, el("span", { class: "spinner", "aria-hidden": "true" }), ` ${t("{name} is thinking…", { name: nameOf(s.ai.seat) })}`);
}

/** The move that led to the position shown, in the server's words: on a phone, the other side's move is read at the top. */
function renderLastMove() {
  const moves = ui.state?.moves || [];
  const ply = ui.replay.ply ?? moves.length;
  const move = ply > 0 ? moves[ply - 1] : null;
  const said = move ? { name: nameOf(move.player), move: move.summary || move.move, ply } : null;
  setText($("last-move"), !said ? "" : ui.replay.ply === null ? t("Last move: {name} {move}.", said) : t("Move {ply}: {name} {move}.", said));
}

// ---------------------------------------------------------------- action buttons

export function renderActions() {
  const s = ui.state;
  const advance = $("advance", HTMLButtonElement);
  const player = ui.seat !== null && ui.seat !== undefined;
  const live = ui.replay.ply === null;
  const act = canAct() && ui.connection === "open";
  const a = legal().advance;
  // The numbers are the mover's: shown only to the player who may advance now.
  // Its name is its text (the key is aria-keyshortcuts in the page).
  // The gain is a part of its own, which a phone shows as a second line.
  if (a && s && !s.result && act) {
    fill(advance, tn("Advance {n} space", "Advance {n} spaces", a.spaces),
      el("span", { class: "advance-gain" }, el("span", { class: "advance-dot" }, " · "), `+${tn("{n} button", "{n} buttons", a.buttons)}`));
  } else advance.textContent = t("Advance");
  advance.disabled = !(act && a) || !!ui.confirming;
  const confirming = ui.confirming;
  $("confirm").hidden = !confirming;
  if (confirming) $("confirm-words").textContent = `${confirming.words}?`;
  $("confirm-move", HTMLButtonElement).disabled = ui.connection !== "open";
  $("confirm-setting-label").hidden = !player || !s || !!s.result;
  $("confirm-setting", HTMLInputElement).checked = confirmsMoves();
  advance.hidden = !player || s?.status === "over";
  const undo = $("undo", HTMLButtonElement);
  undo.hidden = !(player && s && s.undo && live);
  undo.disabled = ui.connection !== "open";
  const hint = $("hint", HTMLButtonElement);
  hint.hidden = !(player && s && s.hints && !s.result && live);
  hint.disabled = !act || !!ui.confirming;
  // Ending the game early: the server says whether it may be resigned or aborted now; one more click confirms.
  const seated = typeof ui.seat === "number";
  $("abort", HTMLButtonElement).hidden = !(seated && s?.can_abort && live) || !!ui.ending;
  $("resign", HTMLButtonElement).hidden = !(seated && s?.can_resign && !s?.can_abort && live) || !!ui.ending;
  // A correspondence opponent past their days: the server names the seat that may claim the win.
  $("claim", HTMLButtonElement).hidden = !(seated && s?.claimable_by === ui.seat && live);
  $("ending").hidden = !ui.ending;
  if (ui.ending) {
    $("ending-words").textContent = ui.ending === "resign" ? t("Resign this game? Your opponent wins.") : t("Abort this game? It ends with no result.");
    $("ending-yes").textContent = ui.ending === "resign" ? t("Resign") : t("Abort");
  }

  const hold = ui.hold;
  const holding = !!hold;
  $("hold-controls").hidden = !holding || !!ui.confirming;
  const turnPanel = $("hold-controls").closest(".turn-panel");
  turnPanel?.classList.toggle("holding", holding && !ui.confirming);
  turnPanel?.classList.toggle("over", ui.state?.status === "over"); // nothing to hold any more: the slot gives its room back
  turnPanel?.classList.toggle("puzzle-over", !!ui.state?.puzzle?.answer); // the puzzle's panel says the rest
  const o = holdOrientation(hold);
  const ok = !!(hold && o) && holdIsLegal();
  // Place is off while the preview does not fit: a red preview is never sent (the server would only refuse it).
  $("place", HTMLButtonElement).disabled = !ok;
  if (hold && o) {
    fill($("hold-label"),
      `${t("Patch {patch}, {orientation}, at {square}:", { patch: hold.patch, orientation: o.words, square: squareName(hold.row, hold.col) })} `,
      el("strong", { class: ok ? "ok" : "bad" }, ok ? `${t("fits")} ✓` : `${t("not allowed here")} ✗`));
  }
}

function renderHintBox() {
  const box = $("hint-box");
  const h = ui.hint;
  if (!h || h.version !== ui.state?.version) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const prob = typeof h.win_probability === "number" ? number(h.win_probability, { style: "percent" }) : "?";
  const margin = typeof h.expected_margin === "number" ? formatNumber(h.expected_margin, { sign: true, digits: 1 }) : "?";
  fill(box,
    el("p", {}, el("strong", {}, `${t("Hint:")} `), h.best_move_words, el("code", {}, ` ${h.best_move}`)),
    (h.best_move_why || []).length ? el("ul", { class: "hint-why", "data-testid": "hint-why" }, h.best_move_why.map((why) => el("li", {}, why))) : null,
    el("p", { class: "caption" }, t("Chance of winning with it: {chance}; expected margin {margin} points.", { chance: prob, margin })),
    el("button", { type: "button", class: "link-button", onclick: () => update({ hint: null }) }, t("dismiss")));
}

function renderLinks() {
  const s = ui.state;
  const entry = storedEntry();
  const waiting = s && s.mode === "online" && s.status === "waiting";
  const invite = $("invite");
  const code = waiting ? entry?.invite : undefined;
  invite.hidden = !code;
  if (code) {
    const link = `${location.origin}/game/${encodeURIComponent(ui.id)}?invite=${encodeURIComponent(code)}`;
    $("invite-link", HTMLAnchorElement).href = link;
    $("invite-link", HTMLAnchorElement).textContent = link;
  }
}

// ---------------------------------------------------------------- the end: score breakdown

function renderResult() {
  const s = ui.state;
  const c = ui.catalogue;
  const box = $("result");
  if (!s || !s.result || !c) { // the catalogue comes before any state
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const r = s.result;
  const b = r.breakdown || [];
  const penalty = c.empty_square_penalty;
  /** @type {(label: string, get: (part: import("./contract").ScoreRows, seat: number) => string | number, name: string) => HTMLElement} */
  const row = (label, get, name) =>
    el("tr", { class: name }, el("th", { scope: "row" }, label), [0, 1].map((p) => el("td", { "data-testid": `result-${name}-${p}` }, b[p] ? get(b[p], p) : "–")));
  const names = { name: nameOf(r.winner), loser: nameOf(1 - r.winner) };
  fill(box,
    el("h2", { class: "panel-title" }, t("Final score")),
    el("p", { class: "winner" }, tokenBadge(r.winner), ` ${
      r.by === "time" ? t("{name} wins: {loser} ran out of time. The scores as they stood:", names)
      : r.by === "resignation" ? t("{name} wins: {loser} resigned. The scores as they stood:", names)
      : r.by === "claim" ? t("{name} wins: {loser} went past the days for a move. The scores as they stood:", names)
      : (r.scores || []).length === 2 ? t("{name} wins, {score} to {other}.", { ...names, score: formatNumber(r.scores[r.winner]), other: formatNumber(r.scores[1 - r.winner]) })
      : t("{name} wins.", names)}`),
    ratingChanges(s),
    r.tiebreak ? el("p", { class: "tiebreak", "data-testid": "tiebreak" }, t("Tied on points: {name} wins the tie-break by reaching space {space} first.", { name: nameOf(r.winner), space: c.last_space })) : null,
    el("table", { class: "score-table" },
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, el("span", { class: "visually-hidden" }, t("Score"))), [0, 1].map((p) => el("th", { scope: "col" }, tokenBadge(p), ` ${nameOf(p)}`)))),
      el("tbody", {},
        row(t("Buttons"), (x) => x.buttons, "buttons"),
        row(t("{area} bonus", { area: bonusArea() }), (x) => (x.bonus ? `+${x.bonus}` : "0"), "bonus"),
        row(t("Empty squares"), (x) => x.empty, "empty"),
        row(t("Penalty ({points} each)", { points: penalty }), (x) => formatNumber(-Math.abs(x.penalty)), "penalty"),
        row(t("Total"), (x) => formatNumber(x.total), "total"))),
    rematchOffer());
}

/** A link to the rematch once it exists; before that, the button that starts it (players only). */
function rematchOffer() {
  const s = ui.state;
  if (!s) return null; // drawn with the result only
  if (s.rematch) {
    const watching = ui.seat === null || ui.seat === undefined;
    return el("p", { class: "rematch", "data-testid": "rematch-started" },
      `${t("The rematch has started ({name} moves first):", { name: s.rematch_first })} `,
      el("a", { href: `/game/${encodeURIComponent(s.rematch)}`, "data-testid": "rematch-link" }, watching ? t("watch it") : t("play it")),
      ".");
  }
  if (ui.seat === null || ui.seat === undefined || !s.may_rematch) return null; // (a lesson goes on to the next lesson instead)
  return el("p", { class: "rematch" },
    el("button", {
      type: "button", class: "primary", "data-testid": "rematch",
      onclick: () => sendIntent({ type: "rematch" }, { kind: "rematch", text: "rematch" }),
    }, t("Rematch")),
    ` ${t("the same players; {name} moves first.", { name: s.rematch_first })}`);
}

// ---------------------------------------------------------------- move list

function renderMoves() {
  const list = $("moves");
  const moves = ui.state?.moves || [];
  const replaying = replayAvailable();
  const current = ui.replay.ply;
  if (drawnAs(list, [ui.state?.version, moves.length, ui.state?.names, replaying, current])) return;
  // Each move as a sentence, its notation after it; in a replay, a button that shows the position after it.
  const items = moves.map((m, i) => {
    const content = [
      m.player === null ? null : tokenBadge(m.player, "small"), // every move played has its player
      el("span", { class: "move-summary" }, `${nameOf(m.player)} ${m.summary || m.move}`),
      el("code", { class: "move-text" }, m.move),
    ];
    return el("li", { class: `move${current !== null && i === current - 1 ? " current" : ""}`, "data-ply": m.ply, value: m.ply },
      replaying
        ? el("button", { type: "button", class: "move-button", title: t("Show the position after this move"), onclick: () => setReplay(i + 1) }, content)
        : content);
  });
  if (!items.length) items.push(el("li", { class: "caption empty-list" }, t("No moves yet.")));
  fill(list, items);
  // The list says how many moves it showed last (the drawing's own memory): a new one scrolls into view.
  if (String(moves.length) !== list.dataset.shown && current === null) list.scrollTop = list.scrollHeight;
  list.dataset.shown = String(moves.length);
  list.tabIndex = list.scrollHeight > list.clientHeight ? 0 : -1; // a list that scrolls can be scrolled by keys too
  if (current !== null) keepInList(list, list.querySelector(".current")); // the list scrolls, never the page
}

// ---------------------------------------------------------------- help

export function renderHelp() {
  const c = ui.catalogue;
  if (!c) return;
  const size = c.bonus_size;
  fill($("help-list"),
    el("li", {}, el("span", { class: "mark-income" }, "◉"), " ", withBold(t("Each time your token crosses a button space on the time track, you are paid your quilt's <b>income</b>: the buttons printed on your patches."))),
    el("li", {}, withBold(t("<b>Advancing</b> moves you just past your opponent and earns one button per space moved."))),
    el("li", {}, withBold(t("Buttons pay for patches and are your points at the end; each <b>empty square</b> costs {points} points.", { points: c.empty_square_penalty }))),
    el("li", {}, withBold(t("The first to cover a whole {size}x{size} area takes the <b>bonus</b>: {points} points.", { size, points: c.bonus_points }))),
    el("li", {}, withBold(t("The higher score wins; on a <b>tie</b>, whoever reached space {space} first wins, so a game is never drawn.", { space: c.last_space }))),
    el("li", {}, withBold(t("<b>Score now</b> is the score if the game ended now; <b>forecast</b> adds what the player would still collect by only advancing."))),
    el("li", {}, touchScreen()
      ? t("Placing: tap a patch on offer (or drag it onto your quilt), turn and flip it with the buttons, tap where it goes, and tap again to sew it; green means it fits.")
      : t("Placing: pick a patch up, then turn it (R, right-click or wheel) and flip it (F); green means it fits.")));
}
