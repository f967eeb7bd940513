// @ts-check
// The lesson panel of a lesson game: what the lesson says, its steps ticked off
// as the server finds them done, and the way on. It also points at the part of
// the board the lesson is about.
import { $, el, errorText, fill, find } from "./common.js";
import { t } from "./i18n.js";
import { ui } from "./store.js";
import { startLesson } from "./lessons.js";

/** @type {Record<string, string[]>} what each of the lesson's spotlights lights up */
const SPOTLIGHTS = {
  circle: [".circle-panel"],
  track: [".track-panel"],
  hand: [".circle-panel", "#hold-controls"],
  advance: ["#advance"],
  quilt: ["#player-0"],
};

export function renderLesson() {
  const panel = $("lesson");
  const lesson = ui.state?.lesson;
  panel.hidden = !lesson;
  panel.classList.toggle("done", !!lesson?.done); // a phone brings the praise and the way on up to the top
  renderTask(lesson);
  for (const node of document.querySelectorAll(".spotlight")) node.classList.remove("spotlight");
  if (!lesson) return;
  const spotlight = lesson.done ? (ui.state?.result ? ["#result"] : []) : (lesson.spotlight ? SPOTLIGHTS[lesson.spotlight] : null) || [];
  for (const selector of spotlight) find(selector)?.classList.add("spotlight");
  const current = lesson.steps.findIndex((step) => !step.done);
  const next = lesson.next; // a local, so the button's listener keeps it known not null
  const key = JSON.stringify([lesson, ui.state?.version]);
  if (panel.dataset.key === key) return; // unchanged: keep focus and scroll as they are
  panel.dataset.key = key;
  fill(
    panel,
    el("h2", { class: "panel-title", id: "lesson-title" }, t("Lesson {number} of {count}: {title}", { number: lesson.number, count: lesson.count, title: lesson.title })),
    lesson.intro.map((text) => el("p", {}, text)),
    el(
      "ol",
      { class: "lesson-steps", "data-testid": "lesson-steps" },
      lesson.steps.map((step, index) =>
        el(
          "li",
          { class: step.done ? "done" : index === current ? "current" : "", "aria-current": index === current ? "step" : null },
          el("span", { class: "step-mark", "aria-hidden": "true" }, step.done ? "✓" : index === current ? "▶" : "·"),
          el("span", {}, step.task),
          step.done ? el("span", { class: "visually-hidden" }, ` ${t("(done)")}`) : null,
        ),
      ),
    ),
    lesson.done ? el("p", { class: "lesson-praise", "data-testid": "lesson-praise", role: "status" }, el("strong", {}, `${t("Well done.")} `), lesson.praise) : null,
    el(
      "div",
      { class: "lesson-actions" },
      lesson.done && next
        ? el("button", { type: "button", class: "primary", "data-testid": "next-lesson", onclick: () => begin(next) }, t("Next lesson: {number} of {count}", { number: next, count: lesson.count }))
        : null,
      lesson.done && !lesson.next ? el("a", { class: "button primary", href: "/?level=beginner#new-game-card", "data-testid": "tutorial-finished" }, t("Play the beginner level")) : null,
      el("button", { type: "button", "data-testid": "restart-lesson", onclick: () => begin(lesson.number) }, t("Start this lesson again")),
      el("a", { href: "/#learn", "data-testid": "all-lessons" }, t("All lessons")),
    ),
  );
}

/**
 * The step to do now, in one line beside the turn (the phone layout shows it there, the whole lesson further down).
 * @param {import("./contract").Lesson | null | undefined} lesson
 */
function renderTask(lesson) {
  const line = $("lesson-task");
  const step = lesson?.steps.find((s) => !s.done);
  const puzzle = ui.state?.puzzle;
  line.hidden = !lesson && !(puzzle && !puzzle.answer);
  // A puzzle's task takes the same line until it is answered (then its panel comes up to say how it went).
  if (!lesson && puzzle) fill(line, el("strong", {}, `${t("Puzzle (rated {rating}):", { rating: puzzle.rating })} `), puzzle.task, " ", el("a", { href: "#puzzle" }, t("More")));
  if (!lesson) return;
  fill(
    line,
    el("strong", {}, `${lesson.done ? t("Lesson {number} done.", { number: lesson.number }) : t("Lesson {number}:", { number: lesson.number })} `),
    // Every step done but the lesson not yet: a special patch just earned is still to place.
    lesson.done ? "" : `${step ? step.task : `${ui.state?.turn_reason ?? ""}.`.replace(/^./, (c) => c.toUpperCase())} `,
    el("a", { href: "#lesson" }, !lesson.done ? t("Read the lesson") : lesson.next ? t("Go on to the next lesson") : t("That was the last: play the computer")),
  );
}

/** @param {number} number the lesson's */
async function begin(number) {
  try {
    await startLesson(number);
  } catch (error) {
    const message = $("message");
    message.textContent = t("The lesson could not be started: {error}", { error: errorText(error) });
    message.dataset.kind = "error";
  }
}
