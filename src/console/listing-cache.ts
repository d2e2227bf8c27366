import type { BoardTicket } from './board/board-ticket';

/** The tickets of one walk of visibility, and when that walk started (visibility as of then, or a little later). */
export interface TicketListing {
  tickets: BoardTicket[];
  listedAt: Date;
}

export interface ListingCacheOptions {
  /** A listing older than this is read again in the background by the next request, which the old one answers. */
  refreshAfterMs?: number;
  /** A listing older than this is not served: the request waits for a new one (after a quiet spell). */
  maxAgeMs?: number;
  /**
   * A request that finds the listing past `refreshAfterMs` waits this long at most for the read it starts (or joins),
   * but only when the window's last read took less than this: where reads are quick (a few hundred tickets) the
   * board is current, where they are slow (thousands) it is answered at once from the listing kept. 0: never waits.
   */
  waitForReadMs?: number;
  /** How many `days` windows are kept at once; the least recently asked goes first. */
  maxWindows?: number;
  /** A background read failed: the listing kept is served until it is `maxAgeMs` old. */
  onRefreshError?: (error: unknown) => void;
  now?: () => number;
}

export const LISTING_REFRESH_AFTER_MS = 3_000;
export const LISTING_MAX_AGE_MS = 300_000;
export const LISTING_WAIT_FOR_READ_MS = 100;

interface Window {
  current?: TicketListing;
  reading?: Promise<TicketListing>;
  /** How long the last successful read took. */
  lastReadMs?: number;
}

/**
 * The board's listing, kept between requests: the first request of a window waits for a walk of visibility, later
 * ones are answered at once from the listing kept, and one of them starts the next walk in the background when the
 * listing is older than `refreshAfterMs` (waiting for it a moment when walks are known to be quick). Only one walk
 * per window runs at a time. A listing older than `maxAgeMs`
 * (nobody looked for a while, or the walks failed) is not served; the request waits for a walk as the first did.
 * No timer: without requests nothing is read.
 */
export class ListingCache {
  private readonly windows = new Map<number, Window>();
  private readonly refreshAfterMs: number;
  private readonly maxAgeMs: number;
  private readonly maxWindows: number;
  private readonly waitForReadMs: number;
  private readonly now: () => number;

  constructor(private readonly walk: (days: number) => Promise<BoardTicket[]>, private readonly options: ListingCacheOptions = {}) {
    this.refreshAfterMs = options.refreshAfterMs ?? LISTING_REFRESH_AFTER_MS;
    this.maxAgeMs = options.maxAgeMs ?? LISTING_MAX_AGE_MS;
    this.maxWindows = options.maxWindows ?? 4;
    this.waitForReadMs = options.waitForReadMs ?? LISTING_WAIT_FOR_READ_MS;
    this.now = options.now ?? Date.now;
  }

  list(days: number): Promise<TicketListing> {
    const window = this.window(days);
    const current = window.current;
    const age = current ? this.now() - current.listedAt.getTime() : Infinity;
    if (current && age < this.maxAgeMs) {
      if (age < this.refreshAfterMs) return Promise.resolve(current);
      let reading = window.reading;
      if (!reading) {
        reading = this.read(window, days);
        reading.catch((error: unknown) => this.options.onRefreshError?.(error));
      }
      if ((window.lastReadMs ?? Infinity) >= this.waitForReadMs) return Promise.resolve(current);
      return newerOrKept(reading, current, this.waitForReadMs);
    }
    return window.reading ?? this.read(window, days);
  }

  /** The window of `days`, made the most recently used; the least recently used goes past `maxWindows`. */
  private window(days: number): Window {
    const window = this.windows.get(days) ?? {};
    this.windows.delete(days);
    this.windows.set(days, window);
    while (this.windows.size > this.maxWindows) this.windows.delete(this.windows.keys().next().value!);
    return window;
  }

  private read(window: Window, days: number): Promise<TicketListing> {
    const listedAt = new Date(this.now());
    // The window is updated before anyone awaiting the walk resumes: the next request sees the new listing.
    const reading: Promise<TicketListing> = this.walk(days).then(
      (tickets) => {
        if (window.reading === reading) window.reading = undefined;
        window.lastReadMs = this.now() - listedAt.getTime();
        const listing = { tickets, listedAt };
        if (!window.current || window.current.listedAt <= listedAt) window.current = listing;
        return listing;
      },
      (error: unknown) => {
        if (window.reading === reading) window.reading = undefined;
        throw error;
      },
    );
    window.reading = reading;
    return reading;
  }
}

/** The listing `reading` brings if it comes within `waitMs`; otherwise, or when it fails, the one kept. */
function newerOrKept(reading: Promise<TicketListing>, kept: TicketListing, waitMs: number): Promise<TicketListing> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(kept), waitMs);
    reading.then(
      (listing) => { clearTimeout(timer); resolve(listing); },
      () => { clearTimeout(timer); resolve(kept); },
    );
  });
}
