import { countHashes, defaultFeatureOptions, extractRaw, HashIndex, type FeatureOptions, type RawFeatures } from './features.ts';
import { BACKGROUND_PHRASES, BACKGROUND_LABEL } from './background.ts';

export interface TrainingIntent { name: string; trainingPhrases: string[] }
export interface Ranked { intent: string; confidence: number } // confidence in [0,1]
export interface Classifier { classify(text: string, top?: number): Ranked[] } // best first, default top 3

export interface ClassifierOptions extends FeatureOptions {
  epochs: number;
  learningRate: number;
  /** Share of each intent's phrases held out to fit the softmax temperature; 0 = use `temperature`. */
  /** After calibration, epochs that continue training on all phrases (held-out ones included). */
  finalEpochs: number;
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
  calibrationHoldout: 0.2,
  finalEpochs: 2,
  temperature: 1,
  background: true,
  seed: 1,
};

/** Sparse rows in CSR form. */
interface Csr { offsets: Int32Array; idx: Int32Array; val: Float32Array }

interface Vectorizer {
  opts: FeatureOptions;
  hashes: Uint32Array; // feature index -> hash (kept for serialisation)
  index: HashIndex; // hash -> feature index
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

interface Counted { word: ReturnType<typeof countHashes>; char: ReturnType<typeof countHashes> }

const counted = (r: RawFeatures): Counted => ({ word: countHashes(r.word), char: countHashes(r.char) });

function buildVectorizer(docs: Counted[], opts: FeatureOptions): Vectorizer {
  const index = new HashIndex(docs.length * 16);
  let df = new Int32Array(1024);
  for (const d of docs) {
    for (const block of [d.word.keys, d.char.keys]) {
      for (const h of block) {
        const f = index.add(h);
        if (f >= df.length) {
          const bigger = new Int32Array(df.length * 2);
          bigger.set(df);
          df = bigger;
        }
        df[f]!++;
      }
    }
  }
  const n = docs.length;
  const V = index.size;
  const hashes = new Uint32Array(V);
  const idf = new Float32Array(V);
  for (const d of docs) for (const block of [d.word.keys, d.char.keys]) for (const h of block) hashes[index.get(h)] = h;
  for (let f = 0; f < V; f++) idf[f] = Math.log((1 + n) / (1 + df[f]!)) + 1;
  return { opts, hashes, index, idf, unseenIdf: Math.log(1 + n) + 1 };
}

function vectorize(vec: Vectorizer, doc: Counted, idxOut: number[], valOut: number[]): void {
  const cw = vec.opts.charWeight;
  // Word and char blocks are L2-normalised apart, then weighted; unseen features count in the
  // norm, so a message mostly made of unknown words gets a short known part and low scores.
  const scale = 1 / Math.sqrt(1 + (doc.char.keys.length > 0 && cw > 0 ? cw * cw : 0));
  for (const [block, weight] of [[doc.word, 1], [doc.char, cw]] as const) {
    if (block.keys.length === 0 || weight === 0) continue;
    let norm = 0;
    const start = idxOut.length;
    for (let k = 0; k < block.keys.length; k++) {
      const f = vec.index.get(block.keys[k]!);
      const w = (1 + Math.log(block.counts[k]!)) * (f < 0 ? vec.unseenIdf : vec.idf[f]!);
      norm += w * w;
      if (f >= 0) {
        idxOut.push(f);
        valOut.push(w);
      }
    }
    const k = (weight * scale) / Math.sqrt(norm);
    for (let j = start; j < valOut.length; j++) valOut[j]! *= k;
  }
}

function toCsr(vec: Vectorizer, docs: Counted[]): Csr {
  const idx: number[] = [];
  const val: number[] = [];
  const offsets = new Int32Array(docs.length + 1);
  docs.forEach((d, i) => {
    vectorize(vec, d, idx, val);
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

// Typed arrays only (never plain arrays) so that this hot loop stays monomorphic.
function scores(W: Float32Array, b: Float32Array, C: number, idx: Int32Array, val: Float32Array, from: number, to: number, out: Float64Array): void {
  for (let c = 0; c < C; c++) out[c] = b[c]!;
  for (let j = from; j < to; j++) {
    const base = idx[j]! * C;
    const x = val[j]!;
    for (let c = 0; c < C; c++) out[c]! += x * W[base + c]!;
  }
}

/**
 * Multinomial logistic regression by plain SGD on the given rows, in place on W and b, with a
 * learning rate that decays to a fifth over the run. (Averaged SGD and centroid initialisation
 * were measured too: no better, slower.)
 */
function fitSoftmax(X: Csr, rows: Int32Array, y: Int32Array, sw: Float32Array, W: Float32Array, b: Float32Array, C: number, epochs: number, learningRate: number, seed: number): void {
  const n = rows.length;
  const s = new Float64Array(C);
  const g = new Float64Array(C);
  const active = new Int32Array(C);
  const order = Int32Array.from(rows);
  const rand = rng(seed);
  const total = Math.max(1, epochs * n);
  let t = 0;
  for (let epoch = 0; epoch < epochs; epoch++) {
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
      const lr = (sw[ex]! * learningRate) / (1 + (4 * t++) / total);
      for (let a = 0; a < na; a++) b[active[a]!]! -= lr * g[a]!;
      for (let j = from; j < to; j++) {
        const base = X.idx[j]! * C;
        const x = lr * X.val[j]!;
        for (let a = 0; a < na; a++) W[base + active[a]!]! -= x * g[a]!;
      }
    }
  }
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
 * negative log-likelihood plus a weak prior, by alternating golden-section searches.
 */
function fitCalibration(logits: Float64Array[], y: number[], w: number[], C: number, bg: number): Calibration {
  const p = new Float64Array(C);
  // A weak Gaussian prior (T near 1, shift near 0) keeps a tenant with a handful of held-out
  // phrases from fitting extreme values; with hundreds of phrases the data dominates.
  const nll = (T: number, shift: number): number => {
    let sum = 0.5 * Math.log(T) ** 2 + 0.125 * shift * shift;
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

function logitsOf(model: Model, text: string): Float64Array {
  const idx: number[] = [];
  const val: number[] = [];
  vectorize(model.vec, counted(extractRaw(text, model.vec.opts)), idx, val);
  return logitsOfVector(model, Int32Array.from(idx), Float32Array.from(val), 0, idx.length);
}

function logitsOfVector(model: Model, idx: Int32Array, val: Float32Array, from: number, to: number): Float64Array {
  const C = model.labels.length;
  const s = new Float64Array(C);
  scores(model.W, model.b, C, idx, val, from, to, s);
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
  if (labels.length === 0) return classifierOf({ labels: [], vec: buildVectorizer([], o), W: new Float32Array(0), b: new Float32Array(0), temperature: 1, backgroundShift: 0 });
  // The background class weighs as much as an average intent, so it does not win by sheer size.
  if (o.background) add(BACKGROUND_LABEL, BACKGROUND_PHRASES, data.texts.length / labels.length / BACKGROUND_PHRASES.length);

  const docs = data.texts.map((t) => counted(extractRaw(t, o)));
  const vec = buildVectorizer(docs, o);
  const X = toCsr(vec, docs);
  const C = labels.length;
  const y = Int32Array.from(data.y);
  const sw = Float32Array.from(data.w);
  const model: Model = { labels, vec, W: new Float32Array(vec.hashes.length * C), b: new Float32Array(C), temperature: o.temperature, backgroundShift: 0 };
  const all = Int32Array.from(data.y.keys());
  const held = o.calibrationHoldout > 0 ? holdOut(data.y, C, o) : null;
  if (!held) {
    fitSoftmax(X, all, y, sw, model.W, model.b, C, o.epochs, o.learningRate, o.seed);
    return classifierOf(model);
  }
  // Train on the rest, fit the calibration on the held-out phrases, then continue training on
  // everything for a few epochs: one model, nearly the cost of one training.
  const rest = all.filter((i) => !held.has(i));
  fitSoftmax(X, rest, y, sw, model.W, model.b, C, o.epochs, o.learningRate, o.seed);
  const heldRows = [...held];
  const bg = labels.indexOf(BACKGROUND_LABEL);
  const heldY = heldRows.map((i) => data.y[i]!);
  // Held-out background phrases stand for off-topic traffic: a quarter of the in-scope weight.
  const nIn = heldY.filter((c) => c !== bg).length;
  const nBg = heldY.length - nIn;
  const heldW = heldY.map((c) => (c === bg ? (0.25 * nIn) / Math.max(1, nBg) : 1));
  const logits = heldRows.map((i) => logitsOfVector(model, X.idx, X.val, X.offsets[i]!, X.offsets[i + 1]!));
  Object.assign(model, fitCalibration(logits, heldY, heldW, C, bg));
  if (o.finalEpochs > 0) fitSoftmax(X, all, y, sw, model.W, model.b, C, o.finalEpochs, o.learningRate / 2, o.seed + 1);
  return classifierOf(model);
}

/** A stratified share of each class's rows (classes with fewer than 5 phrases cannot spare one). */
function holdOut(y: number[], C: number, o: ClassifierOptions): Set<number> | null {
  const byClass: number[][] = Array.from({ length: C }, () => []);
  y.forEach((c, i) => byClass[c]!.push(i));
  const rand = rng(o.seed + 7);
  const held = new Set<number>();
  for (const rows of byClass) {
    if (rows.length < 5) continue;
    const k = Math.max(1, Math.round(rows.length * o.calibrationHoldout));
    for (let i = rows.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [rows[i], rows[j]] = [rows[j]!, rows[i]!];
    }
    for (const r of rows.slice(0, k)) held.add(r);
  }
  const trainedClasses = new Set(y.filter((_, i) => !held.has(i)));
  return held.size > 0 && trainedClasses.size >= 2 ? held : null;
}
