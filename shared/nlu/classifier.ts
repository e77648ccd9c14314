import { defaultFeatureOptions, extractRaw, type FeatureOptions } from './features.ts';
import { BACKGROUND_PHRASES, BACKGROUND_LABEL } from './background.ts';

export interface TrainingIntent { name: string; trainingPhrases: string[] }
export interface Ranked { intent: string; confidence: number } // confidence in [0,1]
export interface Classifier { classify(text: string, top?: number): Ranked[] } // best first, default top 3

export interface ClassifierOptions extends FeatureOptions {
  epochs: number;
  learningRate: number;
  average: boolean; // averaged SGD: the mean of the iterates generalises better than the last one
  /** Share of each intent's phrases held out to fit the softmax temperature; 0 = use `temperature`. */
  calibrationHoldout: number;
  temperature: number;
  /** Add a hidden class of generic off-topic phrases, so a message unlike every intent gets low confidence. */
  background: boolean;
  seed: number;
}

export const defaultClassifierOptions: ClassifierOptions = {
  ...defaultFeatureOptions,
  epochs: 8,
  learningRate: 2,
  average: true,
  calibrationHoldout: 0.2,
  temperature: 1,
  background: true,
  seed: 1,
};

/** Sparse rows in CSR form. */
interface Csr { offsets: Int32Array; idx: Int32Array; val: Float32Array }

interface Vectorizer {
  opts: FeatureOptions;
  hashes: Uint32Array; // feature index -> hash (kept for serialisation)
  index: Map<number, number>; // hash -> feature index
  idf: Float32Array;
  unseenIdf: number;
}

export interface Model {
  labels: string[]; // class index -> intent name (the hidden background class included)
  vec: Vectorizer;
  W: Float32Array; // feature-major: W[f * C + c]
  b: Float32Array;
  temperature: number;
  backgroundShift: number; // added to the background logit, fitted with the temperature
}

// Mulberry32: small seeded PRNG so that training is reproducible.
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function buildVectorizer(texts: string[], opts: FeatureOptions): { vec: Vectorizer; raws: ReturnType<typeof extractRaw>[] } {
  const raws = texts.map((t) => extractRaw(t, opts));
  const df = new Map<number, number>();
  for (const r of raws) {
    for (const h of r.word.keys()) df.set(h, (df.get(h) ?? 0) + 1);
    for (const h of r.char.keys()) df.set(h, (df.get(h) ?? 0) + 1);
  }
  const n = texts.length;
  const hashes = new Uint32Array(df.size);
  const idf = new Float32Array(df.size);
  const index = new Map<number, number>();
  let i = 0;
  for (const [h, d] of df) {
    hashes[i] = h;
    idf[i] = Math.log((1 + n) / (1 + d)) + 1;
    index.set(h, i++);
  }
  return { vec: { opts, hashes, index, idf, unseenIdf: Math.log(1 + n) + 1 }, raws };
}

function vectorizeRaw(vec: Vectorizer, raw: ReturnType<typeof extractRaw>, idxOut: number[], valOut: number[]): void {
  const cw = vec.opts.charWeight;
  // Word and char blocks are L2-normalised apart, then weighted; unseen features count in the
  // norm, so a message mostly made of unknown words gets a short known part and low scores.
  const blocks: Array<[Map<number, number>, number]> = [[raw.word, 1], [raw.char, cw]];
  const scale = 1 / Math.sqrt(1 + (raw.char.size > 0 && cw > 0 ? cw * cw : 0));
  for (const [m, weight] of blocks) {
    if (m.size === 0 || weight === 0) continue;
    let norm = 0;
    const start = idxOut.length;
    for (const [h, tf] of m) {
      const f = vec.index.get(h);
      const w = (1 + Math.log(tf)) * (f === undefined ? vec.unseenIdf : vec.idf[f]!);
      norm += w * w;
      if (f !== undefined) {
        idxOut.push(f);
        valOut.push(w);
      }
    }
    const k = (weight * scale) / Math.sqrt(norm);
    for (let j = start; j < valOut.length; j++) valOut[j]! *= k;
  }
}

function toCsr(vec: Vectorizer, raws: ReturnType<typeof extractRaw>[]): Csr {
  const idx: number[] = [];
  const val: number[] = [];
  const offsets = new Int32Array(raws.length + 1);
  raws.forEach((r, i) => {
    vectorizeRaw(vec, r, idx, val);
    offsets[i + 1] = idx.length;
  });
  return { offsets, idx: Int32Array.from(idx), val: Float32Array.from(val) };
}

function softmaxInPlace(s: Float64Array, C: number, invT: number): void {
  let max = -Infinity;
  for (let c = 0; c < C; c++) if (s[c]! > max) max = s[c]!;
  let sum = 0;
  for (let c = 0; c < C; c++) {
    const e = Math.exp((s[c]! - max) * invT);
    s[c] = e;
    sum += e;
  }
  for (let c = 0; c < C; c++) s[c]! /= sum;
}

function scores(W: Float32Array, b: Float32Array, C: number, idx: ArrayLike<number>, val: ArrayLike<number>, from: number, to: number, out: Float64Array): void {
  for (let c = 0; c < C; c++) out[c] = b[c]!;
  for (let j = from; j < to; j++) {
    const base = idx[j]! * C;
    const x = val[j]!;
    for (let c = 0; c < C; c++) out[c]! += x * W[base + c]!;
  }
}

/** Multinomial logistic regression by SGD on sparse rows; returns (averaged) weights. */
function fitSoftmax(X: Csr, y: Int32Array, sw: Float32Array, V: number, C: number, o: ClassifierOptions): { W: Float32Array; b: Float32Array } {
  const n = y.length;
  const W = new Float32Array(V * C);
  const b = new Float32Array(C);
  // Averaging by the usual trick: keep U = sum of t * update, average = W - U / t.
  const U = o.average ? new Float32Array(V * C) : null;
  const Ub = o.average ? new Float32Array(C) : null;
  const s = new Float64Array(C);
  const g = new Float64Array(C);
  const active = new Int32Array(C);
  const order = Int32Array.from({ length: n }, (_, i) => i);
  const rand = rng(o.seed);
  let t = 1;
  const total = Math.max(1, o.epochs * n);
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      const tmp = order[i]!;
      order[i] = order[j]!;
      order[j] = tmp;
    }
    for (let k = 0; k < n; k++) {
      const ex = order[k]!;
      const from = X.offsets[ex]!;
      const to = X.offsets[ex + 1]!;
      scores(W, b, C, X.idx, X.val, from, to, s);
      softmaxInPlace(s, C, 1);
      // Only classes with a noticeable gradient are updated: after the first epoch that is a
      // handful, which makes the update far cheaper than the scoring.
      let na = 0;
      const yi = y[ex]!;
      for (let c = 0; c < C; c++) {
        const gc = s[c]! - (c === yi ? 1 : 0);
        if (gc > 1e-3 || gc < -1e-3) {
          g[na] = gc;
          active[na++] = c;
        }
      }
      const lr = (sw[ex]! * o.learningRate) / (1 + (4 * (t - 1)) / total);
      for (let a = 0; a < na; a++) {
        const c = active[a]!;
        const d = lr * g[a]!;
        b[c]! -= d;
        if (Ub) Ub[c]! -= t * d;
      }
      for (let j = from; j < to; j++) {
        const base = X.idx[j]! * C;
        const x = X.val[j]!;
        for (let a = 0; a < na; a++) {
          const c = active[a]!;
          const d = lr * g[a]! * x;
          W[base + c]! -= d;
          if (U) U[base + c]! -= t * d;
        }
      }
      t++;
    }
  }
  if (U && Ub) {
    for (let i = 0; i < W.length; i++) W[i]! -= U[i]! / t;
    for (let c = 0; c < C; c++) b[c]! -= Ub[c]! / t;
  }
  return { W, b };
}

interface Calibration { temperature: number; backgroundShift: number }

function golden(f: (x: number) => number, lo: number, hi: number, iters = 25): number {
  const phi = (Math.sqrt(5) - 1) / 2;
  let x1 = hi - phi * (hi - lo);
  let x2 = lo + phi * (hi - lo);
  let f1 = f(x1);
  let f2 = f(x2);
  for (let it = 0; it < iters; it++) {
    if (f1 < f2) {
      hi = x2; x2 = x1; f2 = f1; x1 = hi - phi * (hi - lo); f1 = f(x1);
    } else {
      lo = x1; x1 = x2; f1 = f2; x2 = lo + phi * (hi - lo); f2 = f(x2);
    }
  }
  return (lo + hi) / 2;
}

/**
 * Temperature (and a shift of the background logit) that minimise the weighted held-out
 * negative log-likelihood, by alternating golden-section searches.
 */
function fitCalibration(logits: Float64Array[], y: number[], w: number[], C: number, bg: number): Calibration {
  const p = new Float64Array(C);
  const nll = (T: number, shift: number): number => {
    let sum = 0;
    logits.forEach((l, i) => {
      p.set(l);
      if (bg >= 0) p[bg]! += shift;
      softmaxInPlace(p, C, 1 / T);
      sum -= w[i]! * Math.log(Math.max(p[y[i]!]!, 1e-12));
    });
    return sum;
  };
  let logT = 0;
  let shift = 0;
  for (let round = 0; round < (bg >= 0 ? 3 : 1); round++) {
    logT = golden((x) => nll(Math.exp(x), shift), Math.log(0.05), Math.log(5));
    if (bg >= 0) shift = golden((x) => nll(Math.exp(logT), x), -8, 8);
  }
  return { temperature: Math.exp(logT), backgroundShift: shift };
}

interface Dataset { texts: string[]; y: number[]; w: number[] }

function trainModel(labels: string[], data: Dataset, o: ClassifierOptions, cal: Calibration): Model {
  const { vec, raws } = buildVectorizer(data.texts, o);
  const X = toCsr(vec, raws);
  const { W, b } = fitSoftmax(X, Int32Array.from(data.y), Float32Array.from(data.w), vec.hashes.length, labels.length, o);
  return { labels, vec, W, b, ...cal };
}

function logitsOf(model: Model, text: string): Float64Array {
  const idx: number[] = [];
  const val: number[] = [];
  vectorizeRaw(model.vec, extractRaw(text, model.vec.opts), idx, val);
  const C = model.labels.length;
  const s = new Float64Array(C);
  scores(model.W, model.b, C, idx, val, 0, idx.length, s);
  const bg = model.labels.indexOf(BACKGROUND_LABEL);
  if (bg >= 0) s[bg]! += model.backgroundShift;
  return s;
}

/** Softmax over all classes; the hidden background class takes probability but is never ranked. */
export function rankWith(model: Model, text: string, top = 3): Ranked[] {
  const C = model.labels.length;
  if (C === 0 || top <= 0) return [];
  const p = logitsOf(model, text);
  softmaxInPlace(p, C, 1 / model.temperature);
  const ranked: Ranked[] = [];
  for (let c = 0; c < C; c++) if (model.labels[c] !== BACKGROUND_LABEL) ranked.push({ intent: model.labels[c]!, confidence: p[c]! });
  ranked.sort((a, b) => b.confidence - a.confidence);
  return ranked.slice(0, top);
}

export function classifierOf(model: Model): Classifier & { model: Model } {
  return { model, classify: (text: string, top = 3) => rankWith(model, text, top) };
}

export function trainClassifier(intents: TrainingIntent[], options: Partial<ClassifierOptions> = {}): Classifier & { model: Model } {
  const o: ClassifierOptions = { ...defaultClassifierOptions, ...options };
  const labels: string[] = [];
  const data: Dataset = { texts: [], y: [], w: [] };
  const add = (name: string, phrases: string[], weight = 1) => {
    const clean = phrases.map((p) => p.trim()).filter((p) => p.length > 0);
    if (clean.length === 0) return;
    const c = labels.length;
    labels.push(name);
    for (const p of clean) {
      data.texts.push(p);
      data.y.push(c);
      data.w.push(weight);
    }
  };
  for (const intent of intents) add(intent.name, intent.trainingPhrases);
  if (labels.length === 0) return classifierOf({ labels: [], vec: buildVectorizer([], o).vec, W: new Float32Array(0), b: new Float32Array(0), temperature: 1, backgroundShift: 0 });
  // The background class weighs as much as an average intent, so it does not win by sheer size.
  if (o.background) add(BACKGROUND_LABEL, BACKGROUND_PHRASES, data.texts.length / labels.length / BACKGROUND_PHRASES.length);

  const cal = o.calibrationHoldout > 0 ? calibrate(labels, data, o) : { temperature: o.temperature, backgroundShift: 0 };
  return classifierOf(trainModel(labels, data, o, cal));
}

/** Fits the calibration on a stratified held-out share of the phrases, with a model trained on the rest. */
function calibrate(labels: string[], data: Dataset, o: ClassifierOptions): Calibration {
  const byClass: number[][] = labels.map(() => []);
  data.y.forEach((c, i) => byClass[c]!.push(i));
  const rand = rng(o.seed + 7);
  const held = new Set<number>();
  for (const rows of byClass) {
    if (rows.length < 3) continue; // keep tiny intents whole
    const k = Math.max(1, Math.round(rows.length * o.calibrationHoldout));
    const shuffled = [...rows].sort(() => rand() - 0.5);
    for (const r of shuffled.slice(0, k)) held.add(r);
  }
  const none = { temperature: o.temperature, backgroundShift: 0 };
  if (held.size === 0) return none;
  const bg = labels.indexOf(BACKGROUND_LABEL);
  const train: Dataset = { texts: [], y: [], w: [] };
  const heldTexts: string[] = [];
  const heldY: number[] = [];
  data.texts.forEach((t, i) => {
    if (held.has(i)) {
      heldTexts.push(t);
      heldY.push(data.y[i]!);
    } else {
      train.texts.push(t);
      train.y.push(data.y[i]!);
      train.w.push(data.w[i]!);
    }
  });
  if (new Set(train.y).size < 2) return none;
  // Held-out background phrases stand for off-topic traffic: a quarter of the in-scope weight.
  const nIn = heldY.filter((c) => c !== bg).length;
  const nBg = heldY.length - nIn;
  const heldW = heldY.map((c) => (c === bg ? (0.25 * nIn) / Math.max(1, nBg) : 1));
  const model = trainModel(labels, train, o, { temperature: 1, backgroundShift: 0 });
  return fitCalibration(heldTexts.map((t) => logitsOf(model, t)), heldY, heldW, labels.length, bg);
}
