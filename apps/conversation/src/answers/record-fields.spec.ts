import { ExtractiveAnswerer } from './extractive-answerer';
import { answerFromRecords } from './record-fields';
import { readRecord, valueKinds } from './record-lines';
import { chunkFixture } from '../../../../test/stand-ins/chunks';
import { toSources } from './citations';

/** A record's text as ingestion writes it: the title line, then `Label: value` lines. */
const record = (n: number, title: string | null, lines: string[], score = 1) => chunkFixture(n, [...(title ? [title] : []), ...lines].join('\n'), { score });

const DESK_LAMP = record(0, 'Orla desk lamp', [
  'The Orla desk lamp uses a 9 watt LED and has three brightness levels.',
  'Brand: Lumo',
  'Price: $49.00',
  'Warranty: 2 years',
  'Specs > Weight: 1.2 kg',
  'Specs > Height: 45 cm',
  'Colours: black, white, sage',
  'Stock: 40',
  'Released: 2023-04-12',
]);
const FLOOR_LAMP = record(1, 'Orla floor lamp', ['Brand: Lumo', 'Price: $129.00', 'Warranty: 5 years', 'Specs > Weight: 6.5 kg', 'Colour: brass', 'Stock: 12']);
const PERSON = record(2, 'Maria Lopez', [
  'Role: Head of logistics',
  'Department: Operations',
  'Office: Lisbon',
  'Email: maria.lopez@example.com',
  'Phone: +351 21 555 0142',
  'Start date: 2019-09-02',
  'Languages: Portuguese, English, Spanish',
]);
const ORDER = record(3, null, [
  'Order number: SO-10234',
  'Customer: Harbor Cafe',
  'Placed at: 2024-03-01',
  'Status: shipped',
  'Line items 1 > Product: Orla desk lamp',
  'Line items 1 > Quantity: 4',
  'Line items 2 > Product: Fenn chair',
  'Line items 2 > Quantity: 10',
  'Total: €1,196.00',
]);
const ALL = [DESK_LAMP, FLOOR_LAMP, PERSON, ORDER];

const answerOf = (question: string, chunks = ALL) => answerFromRecords(question, chunks);
const linesOf = (question: string, chunks = ALL) => {
  const a = answerOf(question, chunks);
  return a?.kind === 'fields' ? { item: chunks[a.record.chunk].item_id, lines: a.lines } : a;
};

describe('answers from records', () => {
  it.each([
    ['What warranty does the Orla desk lamp have?'],
    ['How long is the warranty on the Orla desk lamp?'],
    ['Orla desk lamp warranty'],
    ['For how long is the Orla desk lamp guaranteed?'],
    ["What's the warranty period of the Orla desk lamp?"],
  ])('quotes the field a question names by its label, a related word or its form: %s', (question) => {
    expect(linesOf(question)).toEqual({ item: 'item-0', lines: ['Warranty: 2 years'] });
  });

  it.each([
    ['How much is the Orla desk lamp?', 'Price: $49.00'],
    ['What does the Orla desk lamp cost?', 'Price: $49.00'],
    ['Price of the Orla desk lamp', 'Price: $49.00'],
    ['Who makes the Orla desk lamp?', 'Brand: Lumo'],
    ['Which brand is the Orla desk lamp?', 'Brand: Lumo'],
    ['How heavy is the Orla desk lamp?', 'Specs > Weight: 1.2 kg'],
    ['How much does the Orla desk lamp weigh?', 'Specs > Weight: 1.2 kg'],
    ['How tall is the Orla desk lamp?', 'Specs > Height: 45 cm'],
    ['What colours does the Orla desk lamp come in?', 'Colours: black, white, sage'],
    ['How many Orla desk lamps are in stock?', 'Stock: 40'],
    ['When was the Orla desk lamp released?', 'Released: 2023-04-12'],
  ])('products: %s', (question, line) => {
    expect(linesOf(question)).toEqual({ item: 'item-0', lines: [line] });
  });

  it.each([
    ['What is the email address of Maria Lopez?', 'Email: maria.lopez@example.com'],
    ["What's Maria Lopez's e-mail?", 'Email: maria.lopez@example.com'],
    ['How can I call Maria Lopez?', 'Phone: +351 21 555 0142'],
    ['Where is Maria Lopez based?', 'Office: Lisbon'],
    ['Which office does Maria Lopez work in?', 'Office: Lisbon'],
    ['When did Maria Lopez join?', 'Start date: 2019-09-02'],
    ['What languages does Maria Lopez speak?', 'Languages: Portuguese, English, Spanish'],
    ['What is the role of Maria Lopez?', 'Role: Head of logistics'],
    ['Which department is Maria Lopez in?', 'Department: Operations'],
  ])('people: %s', (question, line) => {
    expect(linesOf(question)).toEqual({ item: 'item-2', lines: [line] });
  });

  it.each([
    ['When was order SO-10234 placed?', ['Placed at: 2024-03-01']],
    ['Who placed order SO-10234?', ['Customer: Harbor Cafe']],
    ['What is the status of order SO-10234?', ['Status: shipped']],
    ['How much was order SO-10234 in total?', ['Total: €1,196.00']],
    ['Which products are in order SO-10234?', ['Line items 1 > Product: Orla desk lamp', 'Line items 2 > Product: Fenn chair']],
  ])('orders with line items: %s', (question, lines) => {
    expect(linesOf(question)).toEqual({ item: 'item-3', lines });
  });

  describe('records of other shapes', () => {
    const BOOK = record(0, 'Dune Messiah', ['Author: Frank Herbert', 'Published: 1969', 'Pages: 256', 'Publisher: Putnam', 'ISBN: 978-0-593-09823-7', 'Genre: science fiction']);
    const CAR = record(1, 'Fleet car 12', ['Make: Toyota', 'Model: Corolla', 'Year: 2019', 'Mileage: 45,000 km', 'Plate: AB-123-CD', 'Next service: 2025-06-01', 'Fuel: hybrid']);
    const TICKET = record(2, null, [
      'Ticket id: T-4411',
      'Subject: Printer offline on floor 3',
      'Priority: high',
      'Assignee: Jonas Berg',
      'Opened: 2025-01-04',
      'Reporter > Name: Ana Silva',
      'Reporter > Email: ana.silva@example.com',
    ]);
    const SHOP = record(3, 'Corner Bakery', ['Opening hours: 7am to 3pm, closed Mondays', 'Address: 12 Main Street, Springfield', 'Phone: (555) 201-3344', 'Owner: Lena Fischer']);
    const HOTEL = record(4, 'Seaview Hotel', [
      'Stars: 4',
      'Check-in: 3 pm',
      'Check-out: 11 am',
      'Address > Street: Rua Nova 12',
      'Address > City: Porto',
      'Rooms: 48',
      'Price per night: €120',
      'Pets allowed: yes',
    ]);
    const RECIPE = record(5, 'Buttermilk pancakes', [
      'Prep time: 10 minutes',
      'Cook time: 15 minutes',
      'Servings: 4',
      'Ingredients: flour, buttermilk, eggs, butter',
      'Calories: 350 kcal',
    ]);
    const OTHER = [BOOK, CAR, TICKET, SHOP, HOTEL, RECIPE];
    it.each([
      ['Who wrote Dune Messiah?', 'item-0', ['Author: Frank Herbert']],
      ['When was Dune Messiah published?', 'item-0', ['Published: 1969']],
      ['How many pages does Dune Messiah have?', 'item-0', ['Pages: 256']],
      ['Which publisher released Dune Messiah?', 'item-0', ['Publisher: Putnam']],
      ['What genre is Dune Messiah?', 'item-0', ['Genre: science fiction']],
      ['What make is fleet car 12?', 'item-1', ['Make: Toyota']],
      ['What is the mileage of fleet car 12?', 'item-1', ['Mileage: 45,000 km']],
      ['When is fleet car 12 due for its next service?', 'item-1', ['Next service: 2025-06-01']],
      ["What's the licence plate of fleet car 12?", 'item-1', ['Plate: AB-123-CD']],
      ['Who is ticket T-4411 assigned to?', 'item-2', ['Assignee: Jonas Berg']],
      ['What priority does ticket T-4411 have?', 'item-2', ['Priority: high']],
      ['When was ticket T-4411 opened?', 'item-2', ['Opened: 2025-01-04']],
      ["What is the reporter's email for ticket T-4411?", 'item-2', ['Reporter > Email: ana.silva@example.com']],
      ['What are the opening hours of the Corner Bakery?', 'item-3', ['Opening hours: 7am to 3pm, closed Mondays']],
      ['Where is the Corner Bakery?', 'item-3', ['Address: 12 Main Street, Springfield']],
      ['What number do I call to reach the Corner Bakery?', 'item-3', ['Phone: (555) 201-3344']],
      ['Who owns the Corner Bakery?', 'item-3', ['Owner: Lena Fischer']],
      ['How many rooms does the Seaview Hotel have?', 'item-4', ['Rooms: 48']],
      ['What does a night at the Seaview Hotel cost?', 'item-4', ['Price per night: €120']],
      ['Are pets allowed at the Seaview Hotel?', 'item-4', ['Pets allowed: yes']],
      ['In which city is the Seaview Hotel?', 'item-4', ['Address > City: Porto']],
      ['When is check-out at the Seaview Hotel?', 'item-4', ['Check-out: 11 am']],
      ['How many stars does the Seaview Hotel have?', 'item-4', ['Stars: 4']],
      ['How long do the buttermilk pancakes cook?', 'item-5', ['Cook time: 15 minutes']],
      ['How many servings do the buttermilk pancakes make?', 'item-5', ['Servings: 4']],
      ['What ingredients do I need for buttermilk pancakes?', 'item-5', ['Ingredients: flour, buttermilk, eggs, butter']],
      ['How many calories are in the buttermilk pancakes?', 'item-5', ['Calories: 350 kcal']],
    ])('%s', (question, item, lines) => {
      expect(linesOf(question, OTHER)).toEqual({ item, lines });
    });
  });

  it('answers from the record the question names when two share words, whatever their retrieval order', () => {
    const floorFirst = [
      { ...FLOOR_LAMP, score: 9 },
      { ...DESK_LAMP, score: 5 },
    ];
    expect(linesOf('What is the warranty of the Orla desk lamp?', floorFirst)).toEqual({ item: 'item-0', lines: ['Warranty: 2 years'] });
    expect(linesOf('What is the warranty of the Orla floor lamp?', [DESK_LAMP, FLOOR_LAMP])).toEqual({ item: 'item-1', lines: ['Warranty: 5 years'] });
    expect(linesOf('How heavy is the Orla floor lamp?', [DESK_LAMP, FLOOR_LAMP])).toEqual({ item: 'item-1', lines: ['Specs > Weight: 6.5 kg'] });
  });

  it('answers which record holds a value asked about, naming it', () => {
    expect(linesOf('Which Orla lamp has a 5 year warranty?', [DESK_LAMP, FLOOR_LAMP])).toEqual({ item: 'item-1', lines: ['Warranty: 5 years'] });
  });

  it('says that the named record does not state a field it lacks, instead of quoting a neighbour', () => {
    const answer = answerOf('What is the voltage of the Orla floor lamp?');
    expect(answer).toMatchObject({ kind: 'missing', asked: ['voltage'] });
    expect(ALL[answer!.record.chunk].item_id).toBe('item-1');
    // "shoe" names a product of another record; Maria Lopez is still the record asked about.
    const rack = record(4, null, ['Order number: SO-2', 'Line items 1 > Product: Pike shoe rack', 'Line items 1 > Quantity: 1']);
    expect(answerOf("What is Maria Lopez's shoe size?", [...ALL, rack])).toMatchObject({ kind: 'missing', record: { title: 'Maria Lopez' }, asked: ['shoe', 'size'] });
    // The desk lamp states its height; the floor lamp does not.
    const height = answerOf('How tall is the Orla floor lamp?');
    expect(height).toMatchObject({ kind: 'missing' });
    expect(ALL[height!.record.chunk].item_id).toBe('item-1');
  });

  it("leaves a question the record's free text answers to the sentences", () => {
    expect(answerOf('How many brightness levels does the Orla desk lamp have?')).toBeNull();
    expect(answerOf('How many brightness levels does the Orla floor lamp have?')).toMatchObject({ kind: 'missing', asked: ['brightness', 'levels'] });
  });

  it('matches a declared field description like its label', () => {
    const item = record(0, 'Fenn chair', ['Mpn: FN-200-BLK', 'Lead time: 3 weeks', 'Price: $210']);
    expect(answerFromRecords('What is the part number of the Fenn chair?', [item])).toMatchObject({ kind: 'missing' });
    const described = answerFromRecords('What is the part number of the Fenn chair?', [item], { docs: { mpn: "The manufacturer's part number" } });
    expect(described).toMatchObject({ kind: 'fields', lines: ['Mpn: FN-200-BLK'] });
  });

  it('reads only records: prose with a colon is no record', () => {
    expect(readRecord(chunkFixture(0, 'Note: the museum opened in 1901. It has three wings.'), 0)).toBeNull();
    expect(answerFromRecords('When did the museum open?', [chunkFixture(0, 'The museum opened in 1901.')])).toBeNull();
  });

  it.each([
    ['$49.00', 'money'],
    ['EUR 12', 'money'],
    ['2024-03-01', 'date'],
    ['March 3, 2021', 'date'],
    ['2 years', 'duration'],
    ['18 months', 'duration'],
    ['maria.lopez@example.com', 'email'],
    ['+351 21 555 0142', 'phone'],
    ['(415) 555-0199', 'phone'],
    ['1.2 kg', 'weight'],
    ['45 cm', 'length'],
    ['40', 'number'],
  ])('types the value %s as %s', (value, kind) => {
    expect([...valueKinds(value)]).toContain(kind);
  });

  it('types a street address as no date', () => {
    expect(valueKinds('12 Market Street').has('date')).toBe(false);
    expect(valueKinds('12 Mar 2024').has('date')).toBe(true);
  });

  it('types neither a year-like count nor a date as a phone number', () => {
    expect(valueKinds('2024-03-01').has('phone')).toBe(false);
    expect(valueKinds('1200').has('phone')).toBe(false);
  });

  it('answers a follow-up that names no record from the record retrieval ranks first', async () => {
    const answerer = new ExtractiveAnswerer();
    const history = [
      { role: 'user' as const, text: 'What warranty does the Orla floor lamp have?' },
      { role: 'assistant' as const, text: 'Orla floor lamp — Warranty: 5 years [1]' },
    ];
    const chunks = [
      { ...FLOOR_LAMP, score: 9 },
      { ...DESK_LAMP, score: 6 },
    ];
    const answer = await answerer.generate({ question: 'And how heavy is it?', history, chunks, instructions: null });
    expect(toSources(answer, chunks)).toMatchObject({ text: 'Orla floor lamp — Specs > Weight: 6.5 kg [1]', sources: [{ item_id: 'item-1' }] });
  });

  it('the extractive answerer quotes the title and the field line, citing the record first', async () => {
    const answerer = new ExtractiveAnswerer();
    const answer = toSources(
      await answerer.generate({ question: 'What warranty does the Orla desk lamp have?', history: [], chunks: [FLOOR_LAMP, DESK_LAMP], instructions: null }),
      [FLOOR_LAMP, DESK_LAMP],
    );
    expect(answer.text).toBe('Orla desk lamp — Warranty: 2 years [1]');
    expect(answer.sources.map((s) => s.item_id)).toEqual(['item-0']);
    const missing = await answerer.generate({ question: 'What is the voltage of the Orla floor lamp?', history: [], chunks: ALL, instructions: null });
    expect(missing.text).toBe('The record "Orla floor lamp" [1] does not state the voltage.');
  });
});
