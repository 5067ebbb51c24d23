import type { CliCommand } from '../command';
import { bandCommand } from './band';
import { listCommand } from './list';
import { runCommand } from './run';
import { validateCommand } from './validate';

/** The one command table: each command lives in its own module. */
export const COMMANDS: readonly CliCommand[] = [listCommand, validateCommand, runCommand, bandCommand];
