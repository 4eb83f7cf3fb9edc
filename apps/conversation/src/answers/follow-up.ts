import { ChatTurn } from './answer-generator';
import { tokenize } from './terms';

/** Words that point back at something said before ("it", "the second one", "there"). */
const REFERRING = new Set(
  'it its itself they them their theirs this that these those he him his she her hers one ones there then former latter same such other another else'.split(' '),
);

/** Question words that carry no topic of their own: they are not carried into a follow-up. */
const FRAME = new Set('tell know please explain describe list give name many much kind type sort way thing things'.split(' '));

/** A follow-up with at most this many informative words is too short to stand on its own. */
const SHORT = 2;

/** How many earlier user questions a chain of follow-ups may reach back to. */
const MAX_TURNS = 3;

/**
 * Whether a question leans on the conversation: short, opening with "and" or "what about", or with a referring
 * word ("it", "their") and no name of its own for it to refer to ("When did the Mongol Empire reach its greatest
 * extent?" stands alone).
 */
export function needsContext(question: string): boolean {
  const tokens = tokenize(question);
  const informative = tokens.filter((t) => t.term && !REFERRING.has(t.word.toLowerCase()) && !FRAME.has(t.word.toLowerCase()));
  if (informative.length <= SHORT) return true;
  if (/^\s*(and|but|also|so|then|what about|how about)\b/i.test(question)) return true;
  const named = informative.some((t) => t !== tokens[0] && /^\p{Lu}/u.test(t.word));
  return !named && tokens.some((t) => REFERRING.has(t.word.toLowerCase()));
}

/**
 * The words of earlier user questions a follow-up needs to stand alone, in their original spelling, most recent
 * question first: none when the question stands on its own; else the informative words of the previous user
 * question that the follow-up does not already contain, reaching further back while those questions were
 * follow-ups themselves.
 */
export function carriedWords(question: string, history: ChatTurn[]): string[] {
  if (!needsContext(question)) return [];
  const have = new Set(tokenize(question).flatMap((t) => (t.term ? [t.term] : [])));
  const words: string[] = [];
  const earlier = history
    .filter((t) => t.role === 'user')
    .reverse()
    .slice(0, MAX_TURNS);
  for (const turn of earlier) {
    for (const token of tokenize(turn.text)) {
      const lower = token.word.toLowerCase();
      if (!token.term || have.has(token.term) || REFERRING.has(lower) || FRAME.has(lower)) continue;
      have.add(token.term);
      words.push(token.word);
    }
    if (!needsContext(turn.text)) break;
  }
  return words;
}

/** A follow-up made to stand alone without a model: the carried words are appended in parentheses. */
export function standaloneQuestion(question: string, history: ChatTurn[]): string {
  const words = carriedWords(question, history);
  return words.length ? `${question.trim()} (${words.join(' ')})` : question;
}
