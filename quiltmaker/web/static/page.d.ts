// The page's own types (the server's messages are in contract.d.ts, generated): what each
// page's store holds. TypeScript reads them for the JSDoc of the scripts; nothing is built.
import type {
  Analysis,
  Catalogue,
  CataloguePatch,
  ChatLine,
  DamagedGame,
  GameState,
  GameSummary,
  Hint,
  LeaderboardEntry,
  Lobby,
  Profile,
  ReplayPosition,
  Waiting,
} from "./contract";

/**
 * The store as modules read it: its fields, and the objects in them, cannot be assigned,
 * so that the only way to change the page is `update(change)` (page-store.js).
 */
export type Frozen<T> = { readonly [K in keyof T]: Shallow<T[K]> };
type Shallow<T> = T extends Element | Function
  ? T
  : T extends Map<infer K, infer V>
    ? ReadonlyMap<K, V>
    : T extends Set<infer V>
      ? ReadonlySet<V>
      : T extends (infer U)[]
        ? readonly U[]
        : T extends object
          ? Readonly<T>
          : T;

/** This browser's place in a game: a seat, both (pass-and-play), null (watching), undefined (not told yet). */
export type SeatHeld = 0 | 1 | "both" | null | undefined;

/** An intent sent and not yet answered: what it was, in words for the messages. */
export interface Pending {
  kind: string;
  text: string;
}

/** The patch in hand: which, in which orientation (an index of the catalogue's), where, and how it came. */
export interface Hold {
  patch: number;
  oi: number;
  row: number;
  col: number;
  drag: { startX: number; startY: number; moved: boolean; type: string } | null;
  via: "pointer" | "keyboard";
}

export interface Banner {
  id: string;
  text: string;
  kind: string;
}

/** The replay: the position shown (null: the live game), the one asked for, and what it needs from the server. */
export interface ReplayState {
  ply: number | null;
  want: number | null | undefined;
  positions: ReplayPosition[] | null;
  positionsLoading: boolean;
  analysis: Analysis | null;
  analysisState: "idle" | "loading" | "done" | "error";
  analysisError: string | null;
}

/** A move intent: advancing by the server's text, a purchase by its placement, a special patch by its square. */
export type MoveIntent =
  | { move: string }
  | { placement: { patch: number; orientation: string; row: number; col: number } }
  | { special: { row: number; col: number } };

/** A quilt board as built once the catalogue has come (DOM nodes, filled by each render). */
export interface QuiltNodes {
  seat: 0 | 1;
  board: HTMLElement;
  squares: HTMLElement[][];
  overlay: HTMLElement;
  panel: HTMLElement;
  head: HTMLElement;
  stats: HTMLElement;
}

/** The game page's store (store.js). */
export interface GamePage {
  id: string;
  catalogue: Catalogue | null;
  patches: Map<number, CataloguePatch>;
  seat: SeatHeld;
  state: GameState | null;
  /** When the state shown arrived (performance.now()), not when it was shown: the running clock counts down from there. */
  receivedAt: number;
  connection: string;
  socket: { send(message: object): boolean; resync(): void } | null;
  hold: Hold | null;
  cursor: { row: number; col: number } | null;
  hint: (Hint & { version: number }) | null;
  pending: Map<string, Pending>;
  banners: Banner[];
  replay: ReplayState;
  quilts: QuiltNodes[];
  /** On a phone, the quilt tapped to be drawn large (null: this browser's own). */
  frontSeat: number | null;
  missing: boolean;
  confirming: { move: MoveIntent; words: string } | null;
  ending: "resign" | "abort" | null;
  arrivedAt: number;
  /** Words for an acknowledged intent whose state has not come yet. */
  afterAck: { version: number; words: string } | null;
  /** This browser asked for the rematch, and the server took it. */
  rematchAcked: boolean;
  /** States waiting their turn to be shown (the other side's moves, one at a time), with when each arrived. */
  waiting: { state: GameState; at: number }[];
  showing: boolean;
  /** The state that came before the hello's answer, held until the page knows whose seat it is. */
  early: { state: GameState; at: number } | null;
  lastOtherShown: number;
  /** Seats seen here at least once on this page: the next arrival is "back", not "joined". */
  seenHere: Set<number>;
  chat: ChatLine[];
  /** Seats warned of low time, by the version in which their clock last started. */
  warned: Set<string>;
  /** The version whose flag-fall this page last asked the server about. */
  refreshed: number;
  /** The version this page last notified the player of. */
  notified: number;
  /** When the wheel last turned the patch in hand. */
  wheelAt: number;
  audio: AudioContext | null;
}

/** The lobby's store (lobby-store.js): what the front page shows. */
export interface LobbyPage {
  catalogue: Catalogue | null;
  /** Who is signed in: undefined until the server has said. */
  account: { name: string } | null | undefined;
  /** The new-game form's choices that change which of its fields show. */
  form: { mode: string; clock: string; offer: string; level: string };
  /** Lesson number -> whether this browser's game of it is done (the server says). */
  lessonDone: Record<number, boolean>;
  /** This browser's games (and, signed in, the account's): their ids, newest first, and the server's summaries. */
  games: {
    state: "loading" | "done" | "error";
    ids: string[];
    /** The seat held in each: this browser's, or the account's (kept here only, never in this browser's storage). */
    seats: Record<string, SeatHeld>;
    /** When this browser stored each of its games (the order of those the server does not know). */
    stored: Record<string, number>;
    summaries: (GameSummary | DamagedGame)[];
    error: string | null;
  };
  leaderboard: { family: string; entries: LeaderboardEntry[] | null; error: string | null };
  /** The live lobby, as the server last pushed it for this viewer. */
  live: Lobby | null;
  /** A quick match waiting, and its last answer. */
  seek: { seek: string; secret: string; waiting: Waiting | null } | null;
  pollTimer: number;
  /** The lobby's socket: opened again when who is signed in changes (the server sends each viewer their lobby). */
  liveSocket: { close(): void } | null;
}

/** A player's page's store (player.js). */
export interface PlayerPage {
  profile: Profile | null;
  error: string | null;
}

