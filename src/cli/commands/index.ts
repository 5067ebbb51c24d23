import type { CliCommand } from '../command';
import { listCommand } from './list';

/** The one command table: each command lives in its own module. */
export const COMMANDS: readonly CliCommand[] = [listCommand];
