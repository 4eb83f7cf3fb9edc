export * from './analyzer';
export * from './languages';
export * from './normalize';
export * from './stopwords';
export * from './sentences';
export * from './item-title';
export * from './detect';
