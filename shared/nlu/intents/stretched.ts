// Customers stretch words in chat: "byee", "hiii", "thankss", "pleasee", "goood". A word that no
// vocabulary knows is read with its stretched letters shortened when that makes a known word: every
// run of three or more letters to two ("goood" -> "good"), else also the last run to one ("byee" ->
// "bye", "hiii" -> "hi"). A word somebody knows ("see", "too", a product called "Fitt" that the
// articles name) is left as it is.

const RUN = /(\p{L})\1+/gu;

/** The word with its last run of a repeated letter shortened to one letter. */
function lastRunToOne(word: string): string {
  let last: RegExpExecArray | null = null;
  for (const m of word.matchAll(RUN)) last = m;
  return last ? word.slice(0, last.index) + last[1] + word.slice(last.index + last[0].length) : word;
}

/** `text` with each stretched word that `known` does not know replaced by the known word it stretches (lower case). */
export function unstretch(text: string, known: (word: string) => boolean): string {
  return text.replace(/\p{L}+/gu, (word) => {
    const lower = word.toLowerCase();
    if (!/(\p{L})\1/u.test(lower) || known(lower)) return word;
    const two = lower.replace(/(\p{L})\1{2,}/gu, '$1$1');
    if (two !== lower && known(two)) return two;
    const one = lastRunToOne(two);
    return one !== two && known(one) ? one : word;
  });
}
