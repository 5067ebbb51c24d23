import type { CliCommand } from '../command';
import { auditCommand } from './audit';
import { bandCommand, setBandHtmlRenderer } from './band';
import { writeBandHtml } from '../../core/report/bandHtml';
import { exportCommand } from './export';
import { fixCommand } from './fix';
import { generateCommand } from './generate';
import { imagesCommand } from './images';
import { listCommand } from './list';
import { reviewCommand } from './review';
import { runCommand } from './run';
import { validateCommand } from './validate';

/** The one command table: each command lives in its own module. */
export const COMMANDS: readonly CliCommand[] = [listCommand, auditCommand, validateCommand, runCommand, bandCommand, generateCommand, reviewCommand, fixCommand, exportCommand, imagesCommand];

// `taskwright band --html FILE`: the band panel's static report (src/core/report/bandHtml.ts).
setBandHtmlRenderer(writeBandHtml);
