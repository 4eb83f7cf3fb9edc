/**
 * A generated catalogue of records of four shapes (products, people, orders with line items, events with dates),
 * the same for a given seed, and field questions about them in varied phrasings, each with the value its answer
 * must contain. Some questions ask for a field the record lacks (`value` null): the answer must say so.
 */
export interface CatalogueItem {
  id: string;
  data: Record<string, unknown>;
}

export interface FieldQuestion {
  text: string;
  /** The item the question is about. */
  item: string;
  /** The field asked for, as a path ("specs.weight"). */
  field: string;
  /** The value the answer must contain, or null when the record lacks the field. */
  value: string | null;
}

class Random {
  constructor(private state: number) {}
  next(): number {
    // mulberry32
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

const MODELS = `Orla Fenn Brisk Calder Dune Ember Fjord Gale Haven Iris Juno Kestrel Lark Moss Nova Onyx Pike Quill Reed Sable
Tarn Umber Vale Wren Yara Zephyr Alder Birch Cove Delta Elm Flint Grove Heath Isle Jade Knoll Loch Mesa Nook Opal Pebble
Quarry Ridge Slate Thorn Vista Willow Aster Bramble Cinder Drift Ebb Fable Glen Holt Inlet Jasper Kelp Lumen`.split(/\s+/);
const PRODUCT_TYPES =
  `desk lamp|floor lamp|office chair|standing desk|bookshelf|coffee table|wall clock|ceiling fan|table lamp|armchair|side table|wardrobe|bed frame|dining chair|bar stool|shoe rack|coat stand|mirror|rug|sofa|ottoman|desk organiser|monitor arm|footrest|filing cabinet`.split(
    '|',
  );
const BRANDS = 'Lumo Nordvik Halden Brightwell Casa Verde Tallis Oakline Meridian Ferro Kobe Alto Linnea Greyhaven Sorrel'.split(' ');
const MATERIALS = 'oak walnut steel aluminium beech ash bamboo rattan linen wool brass glass marble'.split(' ');
const COLOURS = 'black white grey sage navy oak brass terracotta sand charcoal ivory olive'.split(' ');
const FIRST = `Maria James Aiko Pedro Sofia Liam Amara Jonas Elena Tomas Priya Noah Chloe Mateo Ingrid Kofi Lucia Hugo Nadia Felix
Yusuf Clara Oscar Leila Marco Freya Ravi Hannah Diego Mei Arjun Greta Samuel Zara Viktor Alma Luca Ines Theo Nora`.split(/\s+/);
const LAST = `Lopez Okafor Tanaka Silva Novak Berg Haddad Costa Fischer Moreau Ivanova Quinn Rossi Sato Lindqvist Mensah Duarte
Weber Kowalski Nakamura Byrne Petrov Alvarez Jensen Osei Larsen Romero Varga Keller Dubois Horvat Yilmaz Brennan Castillo Nieminen`.split(/\s+/);
const ROLES =
  'Head of logistics|Data analyst|Account manager|Software engineer|Office manager|Sales lead|Product designer|Recruiter|Financial controller|Support specialist|Marketing manager|Warehouse supervisor'.split(
    '|',
  );
const DEPARTMENTS = 'Operations Finance Sales Engineering Marketing Support People Design Logistics Legal'.split(' ');
const CITIES = 'Lisbon Porto Berlin Hamburg Oslo Bergen Lyon Milan Vienna Prague Dublin Rotterdam Tallinn Krakow Valencia Ghent'.split(' ');
const STREETS = 'Harbour Street|Mill Lane|Station Road|Canal Walk|Market Square|Orchard Row|Quay Street|Chapel Lane'.split('|');
const LANGUAGES = 'English Portuguese Spanish German French Italian Norwegian Polish Dutch Japanese Swahili Arabic'.split(' ');
const CUSTOMERS =
  'Harbor Cafe|Northwind Studio|Blue Fern Hotel|Atlas Dental|Copper Kettle Bakery|Riverside Library|Summit Coworking|Lark & Finch Bistro|Pine Hill School|Tidewater Clinic'.split(
    '|',
  );
const STATUSES = 'processing shipped delivered cancelled returned'.split(' ');
const CARRIERS = 'DHL UPS DPD GLS FedEx PostNL'.split(' ');
const EVENT_ADJ = 'Spring Summer Autumn Winter Harbour Midnight Northern Coastal Urban Open'.split(' ');
const EVENT_NOUN = 'Gala Summit Festival Fair Forum Workshop Meetup Expo Symposium Retreat Hackathon Concert'.split(' ');
const EVENT_TOPIC = 'Design|Data|Jazz|Food|Robotics|Film|Climate|Books|Craft Beer|Photography|Startups|Wellness|Open Source|Architecture'.split('|');
const VENUES = 'Grand Hall|Riverside Pavilion|Old Customs House|Civic Centre|Glasshouse|Harbour Warehouse|City Library Auditorium|Botanical Garden'.split('|');
const MONTHS = 'January February March April May June July August September October November December'.split(' ');

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const isoDate = (r: Random, from: number, to: number) => `${r.int(from, to)}-${pad(r.int(1, 12))}-${pad(r.int(1, 28))}`;

/** Phrasings of one field's question; `{x}` is the record's name. */
type Phrasings = string[];

interface Shape {
  /** Field path -> phrasings, for fields every record of the shape has (or may lack, see `optional`). */
  fields: Record<string, Phrasings>;
}

const PRODUCT: Shape = {
  fields: {
    brand: ['Who makes the {x}?', 'What brand is the {x}?', 'Which company manufactures the {x}?', '{x} brand', 'Who is the maker of the {x}?'],
    price: ['How much is the {x}?', 'What does the {x} cost?', 'What is the price of the {x}?', '{x} price', 'How much does the {x} cost?'],
    warranty: ['What warranty does the {x} have?', 'How long is the warranty on the {x}?', '{x} warranty', 'How long is the {x} guaranteed for?'],
    'specs.weight': ['How heavy is the {x}?', 'How much does the {x} weigh?', 'What is the weight of the {x}?', '{x} weight'],
    'specs.height': ['How tall is the {x}?', 'What is the height of the {x}?', '{x} height'],
    material: ['What is the {x} made of?', 'What material is the {x}?', 'Which material is used for the {x}?'],
    colours: ['What colours does the {x} come in?', 'Which colors is the {x} available in?', '{x} colours'],
    stock: ['How many {x} units are in stock?', 'What is the stock level of the {x}?', 'How many of the {x} do we have in stock?'],
    released: ['When was the {x} released?', 'What is the release date of the {x}?', 'When did the {x} come out?'],
    sku: ['What is the SKU of the {x}?', '{x} SKU', 'Which SKU does the {x} have?'],
  },
};

const PERSON: Shape = {
  fields: {
    email: ['What is the email address of {x}?', "What's {x}'s e-mail?", 'How do I email {x}?', '{x} email'],
    phone: ['What is the phone number of {x}?', 'How can I call {x}?', "What's {x}'s telephone number?", '{x} phone'],
    office: ['Where is {x} based?', 'Which office does {x} work in?', 'Where does {x} work?', 'In which city is {x} located?'],
    start_date: ['When did {x} join?', 'When was {x} hired?', 'What is the start date of {x}?', 'When did {x} start?'],
    role: ['What is the role of {x}?', "What is {x}'s job title?", 'What does {x} do?', '{x} role'],
    department: ['Which department is {x} in?', 'What department does {x} belong to?', '{x} department'],
    languages: ['What languages does {x} speak?', 'Which languages does {x} speak?', '{x} languages'],
    manager: ['Who is the manager of {x}?', 'Who does {x} report to?', "Who is {x}'s manager?"],
  },
};

const ORDER: Shape = {
  fields: {
    customer: ['Who placed order {x}?', 'Which customer ordered {x}?', 'Who is the customer of order {x}?', 'Order {x} customer'],
    placed_at: ['When was order {x} placed?', 'What date was order {x} placed on?', 'When was {x} ordered?'],
    status: ['What is the status of order {x}?', 'What state is order {x} in?', 'Order {x} status'],
    total: ['How much was order {x} in total?', 'What is the total of order {x}?', 'What did order {x} cost?'],
    'items.product': ['Which products are in order {x}?', 'What was ordered in {x}?', 'What products does order {x} contain?'],
    'shipping.city': ['Where is order {x} shipped to?', 'Which city does order {x} go to?', 'What is the shipping city of order {x}?'],
    'shipping.carrier': ['Which carrier delivers order {x}?', 'Who ships order {x}?', 'What carrier is used for order {x}?'],
  },
};

const EVENT: Shape = {
  fields: {
    starts: ['When does the {x} start?', 'What is the start date of the {x}?', 'When is the {x}?', 'When does the {x} begin?'],
    ends: ['When does the {x} end?', 'What is the end date of the {x}?', 'When does the {x} finish?'],
    venue: ['Where is the {x} held?', 'What is the venue of the {x}?', 'Where does the {x} take place?'],
    city: ['In which city is the {x}?', 'Which city hosts the {x}?'],
    organizer: ['Who organizes the {x}?', 'Who is the organizer of the {x}?', 'Who runs the {x}?'],
    capacity: ['How many people can attend the {x}?', 'What is the capacity of the {x}?', 'How many seats does the {x} have?'],
    ticket_price: ['How much is a ticket for the {x}?', 'What is the ticket price of the {x}?', 'How much do tickets to the {x} cost?'],
  },
};

/** Fields a record may lack, asked anyway (the answer must say the record does not state them). */
const MISSING: Record<string, Phrasings> = {
  product: ['What is the voltage of the {x}?', 'What is the energy rating of the {x}?', 'What is the assembly time of the {x}?'],
  person: ["What is {x}'s shoe size?", "What is {x}'s licence plate?"],
  event: ['What is the dress code of the {x}?', 'Is there parking at the {x}? What is the parking fee?'],
};

function valueAt(data: Record<string, unknown>, path: string): string {
  const [head, ...rest] = path.split('.');
  const v = data[head];
  if (Array.isArray(v)) {
    if (rest.length) return String((v[0] as Record<string, unknown>)[rest[0]]);
    return String(v[0]);
  }
  if (rest.length) return valueAt(v as Record<string, unknown>, rest.join('.'));
  return String(v);
}

/** `records` records (a quarter of each shape, roughly) and `questions` questions, for a seed. */
export function recordCatalogue(seed: number, records: number, questions: number): { items: CatalogueItem[]; questions: FieldQuestion[] } {
  const r = new Random(seed);
  const items: CatalogueItem[] = [];
  const named: Array<{ id: string; name: string; shape: Shape; /** A key of MISSING, or 'order'. */ kind: string }> = [];
  const used = new Set<string>();
  const unique = (make: () => string) => {
    for (;;) {
      const name = make();
      if (!used.has(name)) {
        used.add(name);
        return name;
      }
    }
  };
  for (let i = 0; i < records; i++) {
    const kind = (['product', 'product', 'person', 'order', 'event'] as const)[i % 5];
    const id = `${kind}-${i}`;
    let data: Record<string, unknown>;
    let name: string;
    if (kind === 'product') {
      name = unique(() => `${r.pick(MODELS)} ${r.pick(PRODUCT_TYPES)}`);
      data = {
        name,
        description: `The ${name} is part of our ${r.pick(['home', 'studio', 'office', 'classic'])} range, designed for ${r.pick(['small spaces', 'everyday use', 'busy offices', 'reading corners'])}.`,
        sku: `${name.slice(0, 2).toUpperCase()}-${r.int(1000, 9999)}`,
        brand: r.pick(BRANDS),
        price: `$${r.int(15, 900)}.${r.pick(['00', '50', '99'])}`,
        warranty: `${r.int(1, 10)} years`,
        material: r.pick(MATERIALS),
        colours: [...new Set([r.pick(COLOURS), r.pick(COLOURS), r.pick(COLOURS)])],
        specs: { weight: `${r.int(1, 60)}.${r.int(0, 9)} kg`, height: `${r.int(20, 210)} cm` },
        stock: r.int(0, 500),
        released: isoDate(r, 2015, 2025),
      };
    } else if (kind === 'person') {
      name = unique(() => `${r.pick(FIRST)} ${r.pick(LAST)}`);
      const [first, last] = name.toLowerCase().split(' ');
      data = {
        name,
        role: r.pick(ROLES),
        department: r.pick(DEPARTMENTS),
        office: r.pick(CITIES),
        email: `${first}.${last}@example.com`,
        phone: `+${r.int(30, 49)} ${r.int(10, 99)} ${r.int(100, 999)} ${r.int(1000, 9999)}`,
        start_date: isoDate(r, 2008, 2025),
        languages: [...new Set([r.pick(LANGUAGES), r.pick(LANGUAGES)])],
        manager: `${r.pick(FIRST)} ${r.pick(LAST)}`,
      };
    } else if (kind === 'order') {
      name = unique(() => `SO-${r.int(10000, 99999)}`);
      const lines = Array.from({ length: r.int(1, 3) }, () => ({ product: `${r.pick(MODELS)} ${r.pick(PRODUCT_TYPES)}`, quantity: r.int(1, 20), unit_price: r.int(15, 900) }));
      data = {
        order_number: name,
        customer: r.pick(CUSTOMERS),
        placed_at: isoDate(r, 2022, 2025),
        status: r.pick(STATUSES),
        items: lines,
        total: `€${lines.reduce((s, l) => s + l.quantity * l.unit_price, 0).toLocaleString('en-US')}.00`,
        shipping: { city: r.pick(CITIES), street: `${r.int(1, 200)} ${r.pick(STREETS)}`, carrier: r.pick(CARRIERS) },
      };
    } else {
      name = unique(() => `${r.pick(EVENT_ADJ)} ${r.pick(EVENT_TOPIC)} ${r.pick(EVENT_NOUN)} ${r.int(2024, 2027)}`);
      const month = r.int(0, 11);
      const day = r.int(1, 25);
      const year = name.slice(-4);
      data = {
        title: name,
        summary: `A ${r.pick(['one-day', 'weekend', 'week-long'])} gathering for people who care about ${name.split(' ').slice(1, -2).join(' ').toLowerCase()}.`,
        starts: `${MONTHS[month]} ${day}, ${year}`,
        ends: `${MONTHS[month]} ${day + r.int(0, 3)}, ${year}`,
        venue: r.pick(VENUES),
        city: r.pick(CITIES),
        organizer: `${r.pick(FIRST)} ${r.pick(LAST)}`,
        capacity: r.int(40, 5000),
        ticket_price: `€${r.int(0, 400)}`,
      };
    }
    items.push({ id, data });
    named.push({ id, name, shape: { product: PRODUCT, person: PERSON, order: ORDER, event: EVENT }[kind], kind });
  }

  const out: FieldQuestion[] = [];
  for (let q = 0; out.length < questions; q++) {
    const rec = named[r.int(0, named.length - 1)];
    const data = items.find((it) => it.id === rec.id)!.data;
    const missing = rec.kind !== 'order' ? MISSING[rec.kind] : undefined;
    if (missing && r.chance(0.08)) {
      out.push({ text: r.pick(missing).replace('{x}', rec.name), item: rec.id, field: 'missing', value: null });
      continue;
    }
    const field = r.pick(Object.keys(rec.shape.fields));
    const text = r.pick(rec.shape.fields[field]).replace('{x}', rec.name);
    out.push({ text, item: rec.id, field, value: valueAt(data, field) });
  }
  return { items, questions: out };
}
