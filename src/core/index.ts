export * from './model/positions';
export * from './model/finding';
export * from './model/task';
export * from './agents/agent';
export * from './report/findingJson';
export * from './results/trial';
export * from './band/types';
