// Text the operator writes for people to read (condition messages, Event messages, free-text status
// fields) often carries what Harbor said, i.e. whatever the server a connection points at chose to
// send. Every such writer passes it through safeText, so it is safe to print in a terminal
// (`kubectl describe`) and small enough to store: control characters and invisible or
// direction-changing format characters are removed, line breaks and tabs become one space, and
// the rest is cut on a character boundary with "…".

/** The longest message in a condition or an Event, in characters (code points). */
export const MAX_MESSAGE = 1024;

/** Line breaks and tabs, with the spaces around them: one space instead. */
const BREAKS = / *[\t\n\v\f\r\u0085\u2028\u2029]+ */g;
/**
 * Controls (C0, DEL, C1), format characters (zero-width characters, bidi embeddings, overrides
 * and isolates, the BOM, soft hyphens, tags) and lone surrogates.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}]/gu;

/** `text` cleaned and cut to at most `max` characters. Applying it twice changes nothing. */
export function safeText(text: string, max: number = MAX_MESSAGE): string {
  return cut(text.replace(BREAKS, " ").replace(HIDDEN, "").trim(), max);
}

/** The first `max` code points, or the first `max - 1` and "…" when there are more. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text; // UTF-16 units never undercount code points
  let end = 0;
  for (let n = 0; n < max - 1; n++) {
    if (end >= text.length) return text;
    end += unitsAt(text, end);
  }
  const rest = text.length - end;
  if (rest === 0 || rest === unitsAt(text, end)) return text; // at most `max` in all
  return `${text.slice(0, end).trimEnd()}…`;
}

function unitsAt(text: string, i: number): number {
  return (text.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
}
