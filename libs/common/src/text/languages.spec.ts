import fc from 'fast-check';
import { analyze, analyzeTokens, gramsOf, isGram, queryTerms, termFrequencies, termOf } from './analyzer';
import { isLanguageCode } from '@askdata/contracts';
import { languageRules, STEMMED_LANGUAGES } from './languages';
import { detectLanguage, plainlyEnglish, QUESTION_LETTERS, usualLanguage } from './detect';
import { foldText } from './normalize';
import { sentencesIn } from './sentences';

/** One paragraph (a town's new library) in fourteen languages written in Latin letters. */
const LIBRARY: Record<string, string> = {
  fr: "La ville a ouvert une nouvelle bibliothèque au centre, avec des salles de lecture pour les enfants et un café au rez-de-chaussée. Les horaires sont plus longs le samedi, et on peut emprunter jusqu'à dix livres à la fois. Le maire a expliqué que le projet avait coûté moins que prévu grâce aux dons des habitants du quartier.",
  de: 'Die Stadt hat im Zentrum eine neue Bibliothek eröffnet, mit Leseräumen für Kinder und einem Café im Erdgeschoss. Am Samstag ist sie länger geöffnet, und man kann bis zu zehn Bücher auf einmal ausleihen. Der Bürgermeister sagte, das Projekt habe weniger gekostet als geplant, weil die Bewohner des Viertels gespendet haben. Was also bleibt, ist ein Ort für alle.',
  es: 'La ciudad abrió una nueva biblioteca en el centro, con salas de lectura para los niños y una cafetería en la planta baja. El horario es más largo los sábados y se pueden pedir prestados hasta diez libros a la vez. El alcalde explicó que el proyecto costó menos de lo previsto gracias a las donaciones de los vecinos del barrio.',
  it: "La città ha aperto una nuova biblioteca in centro, con sale di lettura per i bambini e un bar al piano terra. Il sabato l'orario è più lungo e si possono prendere in prestito fino a dieci libri alla volta. Il sindaco ha spiegato che il progetto è costato meno del previsto grazie alle donazioni degli abitanti del quartiere.",
  pt: 'A cidade abriu uma nova biblioteca no centro, com salas de leitura para as crianças e um café no térreo. Aos sábados o horário é mais longo, e é possível pegar emprestados até dez livros de uma vez. O prefeito explicou que o projeto custou menos do que o previsto graças às doações dos moradores do bairro.',
  nl: 'De stad heeft in het centrum een nieuwe bibliotheek geopend, met leeszalen voor kinderen en een café op de begane grond. Op zaterdag is de bibliotheek langer open en je kunt tot tien boeken tegelijk lenen. De burgemeester zei dat het project minder heeft gekost dan gepland, omdat de bewoners van de wijk geld hebben gegeven. Of het genoeg is, is nog niet duidelijk.',
  sv: 'Staden har öppnat ett nytt bibliotek i centrum, med läsesalar för barn och ett kafé på bottenvåningen. På lördagar är det öppet längre, och man kan låna upp till tio böcker åt gången. Borgmästaren förklarade att projektet kostade mindre än planerat tack vare gåvor från invånarna i kvarteret, och för det är hon tacksam.',
  da: 'Byen har åbnet et nyt bibliotek i centrum, med læsesale for børn og en café i stueetagen. Om lørdagen har det længere åbent, og man kan låne op til ti bøger ad gangen. Borgmesteren forklarede, at projektet kostede mindre end planlagt, fordi beboerne i kvarteret havde givet penge til det, og for det takkede hun dem.',
  id: 'Kota ini membuka perpustakaan baru di pusat kota, dengan ruang baca untuk anak-anak dan sebuah kafe di lantai dasar. Pada hari Sabtu jam bukanya lebih panjang, dan pengunjung dapat meminjam sampai sepuluh buku sekaligus. Wali kota menjelaskan bahwa proyek itu lebih murah dari rencana berkat sumbangan warga di sekitarnya.',
  sw: 'Mji umefungua maktaba mpya katikati ya mji, yenye vyumba vya kusomea kwa ajili ya watoto na mgahawa kwenye ghorofa ya chini. Siku ya Jumamosi maktaba hufunguliwa kwa muda mrefu zaidi, na mtu anaweza kuazima hadi vitabu kumi kwa wakati mmoja. Meya alieleza kuwa mradi uligharimu kidogo kuliko ilivyopangwa kutokana na michango ya wakazi.',
  ro: 'Orașul a deschis o nouă bibliotecă în centru, cu săli de lectură pentru copii și o cafenea la parter. Sâmbăta programul este mai lung, iar fiecare cititor are dreptul să împrumute până la zece cărți odată. Primarul a explicat că proiectul a costat mai puțin decât era prevăzut, datorită donațiilor făcute de locuitorii cartierului.',
  pl: 'Miasto otworzyło w centrum nową bibliotekę, z czytelniami dla dzieci i kawiarnią na parterze. W soboty jest otwarta dłużej, a jednocześnie można wypożyczyć do dziesięciu książek. Burmistrz wyjaśnił, że projekt kosztował mniej, niż planowano, dzięki darowiznom mieszkańców dzielnicy, i że to jest dopiero początek zmian w mieście.',
  tr: 'Şehir, merkezde çocuklar için okuma salonları ve zemin katta bir kafesi olan yeni bir kütüphane açtı. Cumartesi günleri daha uzun süre açık kalıyor ve aynı anda on kitaba kadar ödünç alınabiliyor. Belediye başkanı, mahalle sakinlerinin bağışları sayesinde projenin planlanandan daha ucuza mal olduğunu açıkladı.',
  cs: 'Město otevřelo v centru novou knihovnu se studovnami pro děti a kavárnou v přízemí. V sobotu má otevřeno déle a najednou si lze půjčit až deset knih. Starosta vysvětlil, že projekt stál méně, než se plánovalo, díky darům obyvatel čtvrti, a že to je teprve začátek dalších změn ve městě.',
};

describe('foldText', () => {
  it('applies NFKC: full-width forms, ligatures and compatibility digits', () => {
    expect(foldText('ＡＢＣ１２３ ﬁnance')).toBe('abc123 finance');
  });

  it('folds case by the language: Turkish dotted and dotless i, everyone else plain i', () => {
    expect(foldText('İSTANBUL IĞDIR', 'tr')).toBe('istanbul ığdır');
    expect(foldText('İstanbul INDIA', 'en')).toBe('istanbul india');
  });

  it('drops Greek accents and folds the final sigma', () => {
    expect(foldText('ΟΔΥΣΣΕΥΣ Αθήνα ἄνθρωπος', 'el')).toBe('οδυσσευσ αθηνα ανθρωποσ');
  });

  it('drops Arabic diacritics and tatweel and folds alef and yeh forms', () => {
    expect(foldText('مُحَمَّد', 'ar')).toBe('محمد');
    expect(foldText('كتـــاب', 'ar')).toBe('كتاب');
    expect(foldText('أحمد إسلام آمن', 'ar')).toBe('احمد اسلام امن');
    expect(foldText('مستشفى', 'ar')).toBe('مستشفي');
  });

  it('drops Hebrew points', () => {
    expect(foldText('שָׁלוֹם', 'he')).toBe('שלום');
  });
});

describe('analyze by language', () => {
  it('keeps English as it was: Porter2 and the Snowball English stopwords', () => {
    expect(analyze("The runners' dogs were running to Zürich's café")).toEqual(['runner', 'dog', 'run', 'zürich', 'café']);
  });

  it('keeps a run of Chinese inside English text one word, as English analysis always had it', () => {
    expect(analyze('The 北京大学 library')).toEqual(['北京大学', 'librari']);
    expect(analyze('The 北京大学 library', 'fr')).toEqual(['the', '北京', '大学', 'library']);
  });

  it('pairs Hangul characters, so a word is found with its particles attached', () => {
    expect(analyze('서울에서', 'ko')).toEqual(['서울', '울에', '에서']);
    expect(analyze('물', 'ko')).toEqual(['물']);
  });

  it('splits Chinese, Japanese, Thai, Lao, Khmer and Burmese into words with ICU dictionaries', () => {
    const words = (text: string, language: string) => analyzeTokens(text, language).map((t) => t.word);
    expect(words('北京大学', 'zh')).toEqual(['北京', '大学']);
    expect(words('故宫博物院成立于1925年', 'zh')).toEqual(['故宫', '博物院', '成立', '于', '1925', '年']);
    expect(analyze('故宫博物院成立于1925年', 'zh')).toEqual(['故宫', '博物院', '成立', '1925']);
    expect(words('東京タワーは高い', 'ja')).toEqual(['東京タワー', 'は', '高い']);
    expect(analyze('東京タワーは高い', 'ja')).toEqual(['東京タワー', '高い']);
    expect(words('ภาษาไทยเป็นภาษาที่สวยงาม', 'th')).toEqual(['ภาษา', 'ไทย', 'เป็น', 'ภาษา', 'ที่', 'สวยงาม']);
    expect(analyze('ພາສາລາວ', 'lo').length).toBeGreaterThan(1);
    expect(analyze('ខ្ញុំស្រលាញ់ភាសាខ្មែរ', 'km')).toEqual(['ខ្ញុំ', 'ស្រលាញ់', 'ភាសាខ្មែរ']);
    expect(analyze('မြန်မာနိုင်ငံသည်', 'my')).toEqual(['မြန်မာနိုင်ငံ', 'သည်']);
  });

  it('stems with each language’s Snowball stemmer and removes its stopwords', () => {
    expect(analyze('Книгами и журналами', 'ru')).toEqual(['книг', 'журнал']);
    expect(analyze('Die Häuser der Städte', 'de')).toEqual(['haus', 'stadt']);
    expect(analyze('les chevaux et le cheval', 'fr')).toEqual(['cheval', 'cheval']);
    expect(analyze('las casas y la casa', 'es')).toEqual(['cas', 'cas']);
    expect(analyze('kitaplardan ve kitap', 'tr')).toEqual(['kitap', 'kitap']);
    expect(analyze('الكتاب في المدرسة', 'ar')).toEqual(['كتاب', 'مدرس']);
    expect(analyze('τα βιβλία και το βιβλίο', 'el')).toEqual(['βιβλι', 'βιβλι']);
    expect(analyze('किताबें', 'hi')).toEqual(['किताब']);
  });

  it('takes the Arabic conjunction off a word with the article, which the Snowball stemmer leaves on', () => {
    expect(analyze('والمدرسة فالكتاب', 'ar')).toEqual(analyze('المدرسة الكتاب', 'ar'));
    // Short words that start so are words of their own (father, governor).
    expect(analyze('والد والي', 'ar')).toEqual(['والد', 'وال']);
  });

  it('handles apostrophes as the language does', () => {
    expect(analyze("İstanbul'da", 'tr')).toEqual(['istanbul']);
    expect(analyze("l'homme", 'fr')).toEqual(['homm']);
    expect(analyze("dell'arte", 'it')).toEqual(['arte']);
  });

  it('has a stemmer for every Snowball language, each changing some inflected word', () => {
    expect(STEMMED_LANGUAGES).toEqual(expect.arrayContaining(['ar', 'de', 'el', 'en', 'es', 'fr', 'hi', 'id', 'lt', 'ne', 'ru', 'sr', 'ta', 'tr']));
    const samples: Record<string, string> = {
      ar: 'الكتاب',
      ca: 'cases',
      da: 'husene',
      de: 'häuser',
      el: 'βιβλία',
      en: 'running',
      es: 'casas',
      eu: 'etxeak',
      fi: 'taloissa',
      fr: 'maisons',
      ga: 'gcathair',
      hi: 'किताबें',
      hu: 'házakban',
      hy: 'քաղաքները',
      id: 'bukunya',
      it: 'case',
      lt: 'namuose',
      ne: 'किताबहरू',
      nl: 'huizen',
      no: 'husene',
      nb: 'husene',
      nn: 'husene',
      pt: 'casas',
      ro: 'casele',
      ru: 'книгами',
      sr: 'књигама',
      sv: 'husen',
      ta: 'புத்தகங்கள்',
      tr: 'kitaplar',
    };
    for (const language of STEMMED_LANGUAGES) {
      const word = samples[language];
      expect([language, analyze(word, language)[0]]).not.toEqual([language, foldText(word, language)]);
    }
  });

  it('analyzes a query in several languages at once, each term once', () => {
    const terms = queryTerms('Häuser running Häuser', ['de', 'en']);
    expect(terms.filter((t) => !isGram(t)).sort()).toEqual(['haus', 'häuser', 'run', 'running'].sort());
    // The German reading adds the words' runs of characters, once each; the English reading adds none.
    expect(terms.filter(isGram).sort()).toEqual(['#_häu', '#häus', '#äuse', '#user', '#ser_', '#_run', '#runn', '#unni', '#nnin', '#ning', '#ing_'].sort());
    // Runs come from the first language (the question's own) alone: an English question gets none from German.
    expect(queryTerms('Häuser running', ['en', 'de']).filter(isGram)).toEqual([]);
  });

  it('indexes the runs of four characters of words outside English, so that a word meets its other forms', () => {
    const grams = (text: string, language: string) => new Set([...termFrequencies(text, language).keys()].filter(isGram));
    // "to Shakira" and "Shakira": the stemmer keeps the preposition on the name; most runs are shared.
    const withPreposition = grams('لشاكيرا', 'ar');
    const name = grams('شاكيرا', 'ar');
    expect([...name].filter((g) => withPreposition.has(g))).toEqual(['#شاكي', '#اكير', '#كيرا', '#يرا_']);
    expect(grams('Книгами', 'ru')).toEqual(new Set(['#_кни', '#книг', '#нига', '#игам', '#гами', '#ами_']));
    // English keeps the analysis it had; words of scripts written without spaces, stopwords and short words have none.
    expect(grams('Shakira was running', 'en').size).toBe(0);
    expect(grams('北京大学', 'zh').size).toBe(0);
    expect(grams('и в на', 'ru').size).toBe(0);
    expect(grams('ум', 'ru').size).toBe(0);
    // Numbers are not forms of each other: 1910 and 1914 share no run.
    expect(grams('в 1914 году и 12-й', 'ru')).toEqual(new Set(['#_год', '#году', '#оду_']));
    // Each run once, however often the word repeats it.
    expect(gramsOf('аааааа')).toEqual(['#_ааа', '#аааа', '#ааа_']);
    // They count in a chunk's terms but are told apart from words.
    expect([...termFrequencies('Книгами', 'ru').keys()].filter((t) => !isGram(t))).toEqual(['книг']);
    expect(new Set(gramsOf('книгами'))).toEqual(grams('Книгами', 'ru'));
  });

  it('gives single words their term and words with their terms in order', () => {
    expect(termOf('Книгами', 'ru')).toBe('книг');
    expect(termOf('the')).toBeNull();
    expect(analyzeTokens('the 北京 office')).toEqual([
      { word: 'the', term: null },
      { word: '北京', term: '北京' },
      { word: 'office', term: 'offic' },
    ]);
  });
});

describe('isLanguageCode', () => {
  it('accepts ISO 639-1 codes only', () => {
    for (const c of ['en', 'zh', 'ar', 'th', 'sw']) expect(isLanguageCode(c)).toBe(true);
    for (const c of ['xx', 'EN', 'eng', 'zh-CN', '', 3]) expect(isLanguageCode(c)).toBe(false);
  });

  it('refuses codes withdrawn from ISO 639-1, whose languages are analyzed under their current codes', () => {
    for (const c of ['iw', 'in', 'ji', 'jw', 'mo', 'sh']) expect(isLanguageCode(c)).toBe(false);
    for (const c of ['he', 'id', 'yi', 'jv', 'ro', 'sr']) expect(isLanguageCode(c)).toBe(true);
    // What the current code gives and the withdrawn one would not: Indonesian's stemmer.
    expect(analyze('perpustakaannya', 'id')).toEqual(['pustaka']);
    expect(analyze('perpustakaannya', 'in')).toEqual(['perpustakaannya']);
  });
});

describe('analyzer properties', () => {
  const languages = fc.constantFrom(...STEMMED_LANGUAGES, 'zh', 'ja', 'th', 'ko', 'und', 'pl');

  it('analyzes any Unicode string in any language without throwing', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), languages, (text, language) => {
        expect(Array.isArray(analyze(text, language))).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), languages, (text, language) => {
        expect(Array.isArray(analyze(text, language))).toBe(true);
      }),
    );
  }, 30000);

  it('normalizes idempotently', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), languages, (text, language) => {
        const once = foldText(text, language);
        expect(foldText(once, language)).toBe(once);
      }),
      { numRuns: 2000 },
    );
  }, 30000);

  it('gives a non-empty text in a supported script its words, and a term to every word that is not a stopword', () => {
    // A random text may be stopwords alone (Arabic "مع", Japanese particles): it then has words but no terms, as
    // "of the" has in English.
    const scripts: Array<[string, number, number]> = [
      ['la', 0x61, 0x7a],
      ['ru', 0x430, 0x44f],
      ['el', 0x3b1, 0x3c9],
      ['ar', 0x628, 0x64a],
      ['he', 0x5d0, 0x5ea],
      ['hi', 0x915, 0x939],
      ['zh', 0x4e00, 0x9fa5],
      ['ja', 0x3041, 0x3093],
      ['ko', 0xac00, 0xd7a3],
      ['th', 0xe01, 0xe2e],
      ['hy', 0x561, 0x586],
      ['ka', 0x10d0, 0x10f0],
    ];
    for (const [language, from, to] of scripts) {
      const letter = fc.integer({ min: from, max: to }).map((c) => String.fromCodePoint(c));
      const word = fc.array(letter, { minLength: 4, maxLength: 12 }).map((a) => a.join(''));
      fc.assert(
        fc.property(fc.array(word, { minLength: 1, maxLength: 5 }), (words) => {
          const text = words.join(' ');
          const tokens = analyzeTokens(text, language);
          expect(tokens.length).toBeGreaterThan(0);
          expect(analyze(text, language)).toEqual(tokens.flatMap((t) => (t.term ? [t.term] : [])));
          const { stopwords } = languageRules(language, (t) => foldText(t, language));
          for (const t of tokens) if (!t.term) expect(stopwords.has(t.word)).toBe(true);
        }),
        { numRuns: 200 },
      );
    }
  }, 30000);
});

describe('sentencesIn', () => {
  it('splits by the locale: CJK and Arabic full stops, English rules for English', () => {
    expect(sentencesIn('长城很长。故宫在北京！你去过吗？', 'zh')).toEqual(['长城很长。', '故宫在北京！', '你去过吗？']);
    expect(sentencesIn('تأسست الجامعة عام 1908. هل زرتها؟ نعم', 'ar')).toEqual(['تأسست الجامعة عام 1908.', 'هل زرتها؟', 'نعم']);
    expect(sentencesIn('Dr. Smith left. He came back.', 'en')).toEqual(['Dr. Smith left.', 'He came back.']);
  });
});

describe('detectLanguage', () => {
  it('tells the language of a text, by its script when only one language is written in it', async () => {
    expect(await detectLanguage('Der Kölner Dom ist eine römisch-katholische Kirche in Köln.')).toBe('de');
    expect(await detectLanguage('Эрмитаж находится в Санкт-Петербурге, на берегу Невы.')).toBe('ru');
    expect(await detectLanguage('تأسست جامعة القاهرة عام 1908، وهي من أقدم الجامعات في مصر.')).toBe('ar');
    expect(await detectLanguage('长城是中国古代的军事防御工程。')).toBe('zh');
    expect(await detectLanguage('東京タワーは高い')).toBe('ja');
    expect(await detectLanguage('ภาษาไทยเป็นภาษาที่สวยงาม')).toBe('th');
  });

  it('says nothing when it cannot tell, rather than guess', async () => {
    expect(await detectLanguage('12345 !!!')).toBeNull();
    expect(await detectLanguage('Apple apple apple orchard number 3.')).toBeNull();
    expect(await detectLanguage('Who won the football world cup in 1998?', QUESTION_LETTERS)).toBe('en');
    // English about α and β receptors is not Greek.
    expect(await detectLanguage('The α and β receptors bind the ligand in the membrane of the cell.')).not.toBe('el');
  });

  it('takes plainly English texts as English, and no text of another language written in Latin letters, accents stripped or not', async () => {
    const english = [
      'Vitamin D deficiency and the risk of fracture: a study of 4,000 women over the age of 65, followed for five years. Those with the lowest levels had more fractures than those with the highest, and the difference remained after adjustment for age and weight.',
      'The library opened a new reading room for children in the centre of town, with a cafe on the ground floor. It is open longer on Saturdays, and each reader may borrow up to ten books at a time.',
      'What is the name of the river that flows through the capital?',
      // A name or a symbol beyond ASCII now and then does not make prose any less English.
      'The α and β subunits of the receptor were purified from the membranes of cells grown in culture, and their binding to the ligand was measured with and without the inhibitor; the β subunit alone bound it with half the affinity of the complex.',
    ];
    for (const text of english) {
      expect(plainlyEnglish(text)).toBe(true);
      expect(await detectLanguage(text, QUESTION_LETTERS)).toBe('en');
    }
    // The same paragraph in fourteen other languages: CLD3 still reads each, with its accents and without them.
    const stripped = (text: string) =>
      text
        .normalize('NFD')
        .replace(/[\u0300-\u036f]/g, '')
        .replace(/ł/g, 'l')
        .replace(/ı/g, 'i')
        .replace(/ß/g, 'ss');
    for (const [language, text] of Object.entries(LIBRARY)) {
      expect([language, plainlyEnglish(text), plainlyEnglish(stripped(text))]).toEqual([language, false, false]);
      expect([language, await detectLanguage(text), await detectLanguage(stripped(text))]).toEqual([language, language, language]);
    }
    // A few English words do not make a text English: German with "the" in a title and "and" in a name.
    const german = 'Die Ausstellung "The Art of Noise" zeigt Werke von Simon and Garfunkel bis zu Kraftwerk; sie ist bis Ende Mai zu sehen.';
    expect(plainlyEnglish(german)).toBe(false);
    // Nor do they when its letters beyond ASCII are more than a name's: Portuguese about a book in English.
    const portuguese = 'A exibição de "The Art of the Deal and Other Stories" em São João, na sessão de estréia, não atraiu a multidão esperada.';
    expect(plainlyEnglish(portuguese)).toBe(false);
  });

  it('says nothing of a text that mixes languages, rather than name the one it looks most like as a whole', async () => {
    const names =
      "The founder's name is written in many ways: Mongolian Chinggis Khaan, English Chinghiz, Chinghis or Chingiz, " +
      'Chinese 成吉思汗, pinyin Chéngjísī Hán, Turkic Cengiz Han, Çingiz Xan, Chingizxon, Çıñğız Xan, Chengez Khan, ' +
      'Jenghis Khan, Djingis Kahn, Russian Чингисхан (Čingiskhan).';
    expect(await detectLanguage(names)).toBeNull();
  });
});

describe('usualLanguage', () => {
  it('is the language most are in, the first on a tie, null when none is known', () => {
    expect(usualLanguage(['nl', 'en', null, 'en'])).toBe('en');
    expect(usualLanguage(['de', 'en'])).toBe('de');
    expect(usualLanguage([null, undefined])).toBeNull();
  });
});
