import type { ContentBlock, ContentBlockParam, Message, MessageParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';

/**
 * An assistant turn as it must go back in the next request: thinking and redacted thinking blocks
 * verbatim with their signatures (models that think refuse a continued conversation without them),
 * text and tool_use blocks as sent. Server-tool blocks go back as they came.
 */
export function assistantContent(content: readonly ContentBlock[]): ContentBlockParam[] {
  const out: ContentBlockParam[] = [];
  for (const b of content) {
    switch (b.type) {
      case 'thinking': out.push({ type: 'thinking', thinking: b.thinking, signature: b.signature }); break;
      case 'redacted_thinking': out.push({ type: 'redacted_thinking', data: b.data }); break;
      case 'text': out.push({ type: 'text', text: b.text }); break;
      case 'tool_use': out.push({ type: 'tool_use', id: b.id, name: b.name, input: b.input }); break;
      default: out.push(b as unknown as ContentBlockParam);
    }
  }
  return out.length ? out : [{ type: 'text', text: '(no answer)' }];
}

export interface ToolUse {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

export function toolUses(content: readonly (ContentBlock | ContentBlockParam)[]): ToolUse[] {
  return content.filter((b): b is Extract<ContentBlock, { type: 'tool_use' }> => b.type === 'tool_use').map((b) => ({ id: b.id, name: b.name, input: b.input }));
}

/**
 * The user turn after an assistant turn: one tool_result for EVERY tool_use block (the API refuses
 * a tool_use left unanswered). `answer` gives each call's result; calls it does not answer are
 * told they were not read.
 */
export function toolResults(content: readonly (ContentBlock | ContentBlockParam)[], answer: (call: ToolUse, index: number) => { content: string; isError?: boolean } | undefined, extraText?: string): MessageParam {
  const blocks: (ToolResultBlockParam | { type: 'text'; text: string })[] = toolUses(content).map((call, i) => {
    const a = answer(call, i) ?? { content: `not read: only one ${call.name} call of an answer is read`, isError: true };
    return { type: 'tool_result', tool_use_id: call.id, content: a.content, ...(a.isError ? { is_error: true } : {}) };
  });
  if (extraText) blocks.push({ type: 'text', text: extraText });
  return { role: 'user', content: blocks.length ? blocks : [{ type: 'text', text: extraText ?? '' }] };
}

/** A conversation kept as the wire format wants it. */
export class Conversation {
  readonly messages: MessageParam[] = [];

  constructor(first: string) {
    this.messages.push({ role: 'user', content: first });
  }

  /** Replaces the opening request (before any answer). */
  setFirst(text: string): void {
    this.messages[0] = { role: 'user', content: text };
  }

  addAssistant(msg: Pick<Message, 'content'>): void {
    this.messages.push({ role: 'assistant', content: assistantContent(msg.content) });
  }

  last(): MessageParam | undefined {
    return this.messages[this.messages.length - 1];
  }

  /**
   * Answers the last assistant turn: its tool calls get results (the chosen one `feedback`), or,
   * when it called no tool, a plain user message asking for the tool.
   */
  addReply(pick: (call: ToolUse) => boolean, feedback: string, isError: boolean, tool: string): void {
    const last = this.last();
    const content = last && last.role === 'assistant' && Array.isArray(last.content) ? last.content : [];
    if (!toolUses(content).length) {
      this.messages.push({ role: 'user', content: `${feedback}\n\nAnswer by calling ${tool}.` });
      return;
    }
    let used = false;
    this.messages.push(toolResults(content, (call) => {
      if (used || !pick(call)) return undefined;
      used = true;
      return { content: feedback, isError };
    }));
  }
}
