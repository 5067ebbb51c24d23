export * from './classify';
export * from './histogram';
export * from './table';
export * from './pairing';
export * from './trend';
export * from './exportList';
export * from './view';
export * from './columns';
