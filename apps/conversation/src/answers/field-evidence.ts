import { FieldLine, ValueKind } from './record-lines';
import { GROUPS_OF, QuestionForm, QuestionTerm } from './question-forms';
import { related } from './terms';

/** Credit for a question word found as a word of the label's last part (or the declared description). */
const LABEL_MATCH = 1;
/** Credit for a question word found in a part of the label's path before the last ("Specs" of "Specs > Weight"). */
const PARENT_MATCH = 0.4;
/** Credit for a question word related to a label word ("cost" for "Price"). */
const RELATED_MATCH = 0.7;
/** Credit when the question's form points at the label ("how much" at "Price"). */
const FORM_MATCH = 0.6;
/** Credit when the value is of a kind the question expects (a duration for "how long"). */
const KIND_MATCH = 0.5;
/** What is left of a field's evidence when its value is not of the kind the question expects. */
const KIND_MISMATCH = 0.5;
/** Credit for a label whose words are all in the question as written. */
const SAME_WORDS = 0.1;

/**
 * How well a field answers what the question asks for: its label's words (exact, in the path before it, or related),
 * the question's form pointing at it, and its value being of the kind expected (counted only when the label
 * matched or the record has one value of that kind). `taken`: the question words the field accounts for.
 */
export function fieldEvidence(
  f: FieldLine,
  questionTerms: QuestionTerm[],
  form: QuestionForm,
  kindCount: Map<ValueKind, number>,
): { evidence: number; taken: Set<string>; exact: boolean } {
  const taken = new Set<string>();
  let exact = false;
  const labelGroups = new Set(f.labelTerms.flatMap((t) => GROUPS_OF.get(t) ?? []));
  let evidence = 0;
  const matchedLabel = new Set<string>();
  for (const q of questionTerms) {
    let credit = 0;
    const word = f.labelTerms.find((t) => t === q.term || (!q.naming && related(t, q.term)));
    if (word) {
      credit = LABEL_MATCH;
      matchedLabel.add(word);
      exact = true;
    } else if (!q.verb && !q.naming && (GROUPS_OF.get(q.term) ?? []).some((g) => labelGroups.has(g))) {
      credit = RELATED_MATCH;
      for (const t of f.labelTerms) if ((GROUPS_OF.get(t) ?? []).some((g) => (GROUPS_OF.get(q.term) ?? []).includes(g))) matchedLabel.add(t);
    } else if (f.parentTerms.includes(q.term)) credit = PARENT_MATCH;
    if (credit > 0) {
      taken.add(q.term);
      evidence += credit;
    }
  }
  let byLabel = evidence > 0;
  if (form.groups.some((g) => labelGroups.has(g))) {
    evidence += FORM_MATCH;
    byLabel = true;
    for (const t of f.labelTerms) if ((GROUPS_OF.get(t) ?? []).some((g) => form.groups.includes(g))) matchedLabel.add(t);
  }
  // A label all of whose words are asked for fits better than one that only shares a word ("Date" against "Order date"),
  // and one written as asked better still ("check-out" against "Check-in", "publisher" against "Published").
  if (f.labelTerms.length) evidence *= 0.75 + 0.25 * (matchedLabel.size / f.labelTerms.length);
  if (evidence > 0) evidence += SAME_WORDS * (f.labelWords.filter((w) => form.words.has(w)).length / f.labelWords.length);
  const kind = form.kinds.find((k) => f.kinds.has(k));
  if (kind && (byLabel || kindCount.get(kind) === 1)) evidence += KIND_MATCH;
  // A value of another kind than the one asked for ("When was ... ordered?" and a product name) is a poor answer.
  else if (form.kinds.length && !kind) evidence *= KIND_MISMATCH;
  return { evidence, taken, exact };
}
