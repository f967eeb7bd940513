// @ts-check
// Sounds of the game, off until the player turns them on (kept in this browser):
// a soft knock for a patch sewn on, a chime for buttons earned, a chord at the end.
// Made with the Web Audio API on the spot: no sound files to download.

import { oneMoveLater, ui, update } from "./store.js";

const SOUND_KEY = "quiltmaker.sound";

export function soundOn() {
  return localStorage.getItem(SOUND_KEY) === "on";
}

/** @param {boolean} on */
export function setSoundOn(on) {
  localStorage.setItem(SOUND_KEY, on ? "on" : "off");
  // A browser lets a page make sound only after the player did something: this click is it.
  if (on) context();
}

function context() {
  if (!ui.audio) update({ audio: new AudioContext() });
  const audio = /** @type {AudioContext} */ (ui.audio);
  if (audio.state === "suspended") audio.resume();
  return audio;
}

/**
 * One tone: `frequency` Hz from `start` seconds from now, fading out over `length`.
 * @param {number} frequency @param {number} start @param {number} length
 * @param {OscillatorType} [type] @param {number} [volume]
 */
function tone(frequency, start, length, type = "sine", volume = 0.18) {
  const ctx = context();
  const oscillator = ctx.createOscillator();
  const gain = ctx.createGain();
  oscillator.type = type;
  oscillator.frequency.value = frequency;
  const at = ctx.currentTime + start;
  gain.gain.setValueAtTime(volume, at);
  gain.gain.exponentialRampToValueAtTime(0.001, at + length);
  oscillator.connect(gain).connect(ctx.destination);
  oscillator.start(at);
  oscillator.stop(at + length);
}

const SOUNDS = {
  place: () => tone(140, 0, 0.12, "triangle", 0.3),
  buttons: () => {
    tone(1320, 0, 0.18);
    tone(1760, 0.07, 0.22);
  },
  end: () => [523, 659, 784].forEach((f, i) => tone(f, i * 0.09, 0.7, "sine", 0.12)),
};

/**
 * The sounds of a new state: what the last move did (from the state's `last_move`), and the end.
 * @param {import("./contract").GameState | null} previous @param {import("./contract").GameState} state
 */
export function soundFor(previous, state) {
  if (!soundOn() || !previous || !oneMoveLater(previous, state)) return;
  const last = state.last_move;
  if (last && last.kind !== "advance") SOUNDS.place();
  if (last && (last.kind === "advance" || (last.income_paid || []).length)) SOUNDS.buttons();
  if (state.result && !previous.result) SOUNDS.end();
}

/** Two short high beeps: this player's own clock is low. */
export function lowTimeTone() {
  if (!soundOn()) return;
  tone(988, 0, 0.09, "square", 0.08);
  tone(988, 0.16, 0.09, "square", 0.08);
}
