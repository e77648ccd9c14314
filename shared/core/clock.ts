// The one place shared/ reads the time and makes random ids. Tests put a fake clock in (`setClock`)
// to move time forward instead of waiting for it; the lint refuses any other `Date.now()` or
// `new Date()` in shared/ (biome plugin .biome/clock.grit).
import { randomUUID } from 'node:crypto';

/** A source of the current time, in milliseconds since the epoch. */
export interface TimeSource {
  now(): number;
}
/** A maker of unique ids (UUIDs in production). */
export interface IdSource {
  newId(): string;
}

const realTime: TimeSource = { now: () => Date.now() };
const randomIds: IdSource = { newId: () => randomUUID() };
let time = realTime;
let ids = randomIds;

export const clock = Object.freeze({
  /** Milliseconds since the epoch. */
  now: (): number => time.now(),
  /** Whole seconds since the epoch (DynamoDB TTL attributes). */
  seconds: (): number => Math.floor(time.now() / 1000),
  date: (): Date => new Date(time.now()),
  iso: (): string => new Date(time.now()).toISOString(),
});

export const newId = (): string => ids.newId();

/** Tests only: read the time from `source` until `useRealClock`. */
export const setClock = (source: TimeSource) => {
  time = source;
};
export const useRealClock = () => {
  time = realTime;
};
/** Tests only: make ids with `source` until `useRandomIds`. */
export const setIds = (source: IdSource) => {
  ids = source;
};
export const useRandomIds = () => {
  ids = randomIds;
};
