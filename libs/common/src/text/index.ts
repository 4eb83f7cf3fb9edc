export * from './analyzer';
export * from './stopwords';
export * from './sentences';
export * from './item-title';
