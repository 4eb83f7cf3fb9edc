import { FinishReason, RetrievedChunk } from '@askdata/contracts';

/** One earlier turn of the chat, oldest first. Assistant turns are the Markdown answers as stored. */
export interface ChatTurn {
  role: 'user' | 'assistant';
  text: string;
}

export interface AnswerRequest {
  /** The user's question as asked (not rewritten: generators that read the history resolve it themselves). */
  question: string;
  /** Earlier turns of the chat, oldest first; empty for a first question. */
  history: ChatTurn[];
  /** The retrieved chunks, best first. Citations are 0-based indexes into this list. */
  chunks: RetrievedChunk[];
  /** The project's instructions for answers, or null. */
  instructions: string | null;
  /** The retrieved items' own titles by item id (`RetrievedChunk.id`), given to generators that name their sources. */
  titles?: Record<string, string>;
  /** Descriptions declared for the chunks' collections' fields, when any were. */
  fields?: FieldDescriptions;
  /** The question's language (ISO 639-1, given or detected): the answer is written in it. English when absent. */
  language?: string;
}

/** Declared descriptions of fields: collection slug -> field name -> description. */
export type FieldDescriptions = Record<string, Record<string, string>>;

/**
 * A generated answer. `text` is Markdown whose citation markers `[1]`, `[2]`, ... are numbered from 1 in order
 * of first appearance, marker `[k]` pointing at `chunks[citations[k - 1]]`; bracketed numbers that are not
 * citations are escaped (`\[3\]`). `composeAnswer` builds this from cited segments; `toSources` checks it and
 * turns it into the public text and sources. When the data does not hold the answer, the text says so plainly
 * (e.g. `NOT_IN_DATA`) and `citations` is empty.
 */
export interface GeneratedAnswer {
  text: string;
  /** 0-based indexes into the request's chunks, in the order of the markers' first appearance. */
  citations: number[];
  /** The passage of a cited chunk the answer relies on, by chunk index, when the generator knows it. */
  quotes?: Record<number, string>;
  /** How the answer ended; `complete` when absent. */
  finish?: FinishReason;
}

/**
 * Answer generation, whichever model (or none) is behind it: the extractive answerer, or Claude
 * (`claude/claude-answerer.ts`), which sends `chunks` as `search_result` blocks in this order so that a citation's
 * `search_result_index` is the chunk index.
 */
export interface AnswerGenerator {
  /** Short name for logs and metrics, e.g. "extractive" or "claude". */
  readonly kind: string;
  /** Whether it names the sources it is given by their titles (the request then carries `titles`). */
  readonly namesSources?: boolean;
  /** Whether it matches records' fields by their declared descriptions (the request then carries `fields`). */
  readonly readsFieldDescriptions?: boolean;
  generate(request: AnswerRequest): Promise<GeneratedAnswer>;
  /**
   * The answer as it is written: `onDraft` hears the answer so far (in the form `generate` returns) after each
   * piece and is awaited (a slow reader slows the generation); the result is the whole answer. Stops, failing,
   * when `signal` aborts. Absent when the generator writes its answer at once (it is then sent sentence by sentence).
   */
  generateStream?(request: AnswerRequest, onDraft: (draft: GeneratedAnswer) => Promise<void>, signal: AbortSignal): Promise<GeneratedAnswer>;
  /** The follow-up rewritten as a question that stands on its own (for retrieval); the question itself when history is empty. */
  rewrite(question: string, history: ChatTurn[]): Promise<string>;
  /** Resolves when the model behind the generator can be reached (readiness); absent when there is none. */
  ready?(): Promise<void>;
}

export const ANSWER_GENERATOR = Symbol('ANSWER_GENERATOR');

/** What an answer says when the data does not contain the answer. It cites nothing. */
export const NOT_IN_DATA = "I couldn't find the answer to that in the data.";

/** `NOT_IN_DATA` in every language with a Snowball stemmer, and in a few more widely spoken ones. */
const NOT_IN_DATA_IN: Record<string, string> = {
  ar: 'لم أجد الإجابة عن ذلك في البيانات.',
  ca: 'No he trobat la resposta a això a les dades.',
  da: 'Jeg kunne ikke finde svaret på det i dataene.',
  de: 'Die Antwort darauf habe ich in den Daten nicht gefunden.',
  el: 'Δεν βρήκα την απάντηση σε αυτό στα δεδομένα.',
  es: 'No encontré la respuesta a eso en los datos.',
  eu: 'Ez dut horren erantzuna aurkitu datuetan.',
  fi: 'En löytänyt vastausta siihen tiedoista.',
  fr: "Je n'ai pas trouvé la réponse à cette question dans les données.",
  ga: 'Níor aimsigh mé an freagra air sin sna sonraí.',
  hi: 'मुझे डेटा में इसका उत्तर नहीं मिला।',
  hu: 'Nem találtam erre választ az adatokban.',
  hy: 'Տվյալներում դրա պատասխանը չգտա։',
  id: 'Saya tidak menemukan jawabannya di dalam data.',
  it: 'Non ho trovato la risposta a questa domanda nei dati.',
  lt: 'Duomenyse neradau atsakymo į tai.',
  ne: 'मैले डेटामा यसको उत्तर भेट्टाइनँ।',
  nl: 'Ik heb het antwoord daarop niet in de gegevens gevonden.',
  no: 'Jeg fant ikke svaret på det i dataene.',
  nb: 'Jeg fant ikke svaret på det i dataene.',
  nn: 'Eg fann ikkje svaret på det i dataa.',
  pt: 'Não encontrei a resposta para isso nos dados.',
  ro: 'Nu am găsit răspunsul la această întrebare în date.',
  ru: 'Я не нашёл ответа на этот вопрос в данных.',
  sr: 'Нисам пронашао одговор на то у подацима.',
  sv: 'Jag hittade inte svaret på det i datan.',
  ta: 'தரவில் இதற்கான பதிலை என்னால் கண்டுபிடிக்க முடியவில்லை.',
  tr: 'Bunun cevabını verilerde bulamadım.',
  zh: '我在数据中没有找到这个问题的答案。',
  ja: 'データの中にその答えは見つかりませんでした。',
  ko: '데이터에서 그에 대한 답을 찾지 못했습니다.',
  th: 'ฉันไม่พบคำตอบของคำถามนี้ในข้อมูล',
  pl: 'Nie znalazłem odpowiedzi na to pytanie w danych.',
  uk: 'Я не знайшов відповіді на це питання в даних.',
  cs: 'V datech jsem na to odpověď nenašel.',
  vi: 'Tôi không tìm thấy câu trả lời cho điều đó trong dữ liệu.',
  fa: 'پاسخ این سؤال را در داده‌ها پیدا نکردم.',
  he: 'לא מצאתי את התשובה לכך בנתונים.',
};

/** `NOT_IN_DATA` in the question's language, English for a language it is not written in. */
export function notInData(language = 'en'): string {
  return NOT_IN_DATA_IN[language] ?? NOT_IN_DATA;
}
