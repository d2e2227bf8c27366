/**
 * The part of JQL the service and its tests use, evaluated against the simulator's issues: AND, OR, NOT and
 * parentheses over project, key, labels, status, statusCategory, issuetype, parent, summary/text (~), created and
 * updated (absolute dates or relative offsets like -15m), IS EMPTY, IN lists, and ORDER BY. Anything else is
 * rejected with a 400 like Jira's, never silently matched.
 */

export interface JqlIssueView {
  key: string;
  id: string;
  project: string;
  labels: string[];
  status: string;
  statusCategory: string;
  issuetype: string;
  parent?: string;
  summary: string;
  text: string;
  created: Date;
  updated: Date;
}

export class JqlError extends Error {}

type Token = { type: 'word' | 'string' | 'op' | 'lparen' | 'rparen' | 'comma'; value: string };

type Expr =
  | { kind: 'and' | 'or'; left: Expr; right: Expr }
  | { kind: 'not'; inner: Expr }
  | { kind: 'cmp'; field: string; op: string; values: string[] };

export interface ParsedJql {
  where?: Expr;
  orderBy: Array<{ field: string; direction: 'ASC' | 'DESC' }>;
}

const FIELDS = new Set(['project', 'key', 'issuekey', 'id', 'labels', 'status', 'statuscategory', 'issuetype', 'type', 'parent', 'summary', 'text', 'created', 'updated', 'createddate', 'updateddate']);

function tokenize(jql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < jql.length) {
    const c = jql[i] ?? '';
    if (/\s/.test(c)) { i++; continue; }
    if (c === '(') { tokens.push({ type: 'lparen', value: c }); i++; continue; }
    if (c === ')') { tokens.push({ type: 'rparen', value: c }); i++; continue; }
    if (c === ',') { tokens.push({ type: 'comma', value: c }); i++; continue; }
    if (c === '"' || c === "'") {
      let j = i + 1;
      let value = '';
      while (j < jql.length && jql[j] !== c) {
        if (jql[j] === '\\') j++;
        value += jql[j] ?? '';
        j++;
      }
      if (j >= jql.length) throw new JqlError(`Error in the JQL Query: The quoted string starting at character ${i} has not been completed.`);
      tokens.push({ type: 'string', value });
      i = j + 1;
      continue;
    }
    const op = /^(!=|>=|<=|!~|=|~|>|<)/.exec(jql.slice(i));
    if (op) { tokens.push({ type: 'op', value: op[0] }); i += op[0].length; continue; }
    const word = /^[^\s()",=!<>~']+/.exec(jql.slice(i));
    if (!word) throw new JqlError(`Error in the JQL Query: unexpected character '${c}' at position ${i}.`);
    tokens.push({ type: 'word', value: word[0] });
    i += word[0].length;
  }
  return tokens;
}

export function parseJql(jql: string): ParsedJql {
  const tokens = tokenize(jql);
  let pos = 0;
  const peek = () => tokens[pos];
  const isWord = (value: string, token = peek()) => token?.type === 'word' && token.value.toUpperCase() === value;
  const next = () => {
    const token = tokens[pos++];
    if (!token) throw new JqlError('Error in the JQL Query: Expecting more input at the end of the query.');
    return token;
  };

  const parseValue = (): string => {
    const token = next();
    if (token.type !== 'word' && token.type !== 'string') throw new JqlError(`Error in the JQL Query: Expecting a value but got '${token.value}'.`);
    if (token.type === 'word' && tokens[pos]?.type === 'lparen') {
      throw new JqlError(`Error in the JQL Query: The function '${token.value}' is not supported by the tracker simulator.`);
    }
    return token.value;
  };

  const parseComparison = (): Expr => {
    const fieldToken = next();
    const field = fieldToken.value.toLowerCase();
    if (fieldToken.type !== 'word' && fieldToken.type !== 'string') throw new JqlError(`Error in the JQL Query: Expecting a field name but got '${fieldToken.value}'.`);
    if (!FIELDS.has(field)) throw new JqlError(`Field '${fieldToken.value}' does not exist or you do not have permission to view it.`);
    if (isWord('IS')) {
      next();
      const negate = isWord('NOT') ? (next(), true) : false;
      const empty = next();
      if (!['EMPTY', 'NULL'].includes(empty.value.toUpperCase())) throw new JqlError(`Error in the JQL Query: Expecting EMPTY or NULL after IS but got '${empty.value}'.`);
      return { kind: 'cmp', field, op: negate ? 'is not empty' : 'is empty', values: [] };
    }
    let op: string;
    if (isWord('IN')) { next(); op = 'in'; }
    else if (isWord('NOT') && isWord('IN', tokens[pos + 1])) { pos += 2; op = 'not in'; }
    else {
      const token = next();
      if (token.type !== 'op') throw new JqlError(`Error in the JQL Query: Expecting an operator after '${fieldToken.value}' but got '${token.value}'.`);
      op = token.value;
    }
    if (op === 'in' || op === 'not in') {
      if (next().type !== 'lparen') throw new JqlError('Error in the JQL Query: Expecting ( after IN.');
      const values = [parseValue()];
      while (peek()?.type === 'comma') { next(); values.push(parseValue()); }
      if (next().type !== 'rparen') throw new JqlError('Error in the JQL Query: Expecting ) to close the IN list.');
      return { kind: 'cmp', field, op, values };
    }
    return { kind: 'cmp', field, op, values: [parseValue()] };
  };

  const parseUnary = (): Expr => {
    if (isWord('NOT')) { next(); return { kind: 'not', inner: parseUnary() }; }
    if (peek()?.type === 'lparen') {
      next();
      const inner = parseOr();
      if (next().type !== 'rparen') throw new JqlError('Error in the JQL Query: Expecting ) to close a group.');
      return inner;
    }
    return parseComparison();
  };
  const parseAnd = (): Expr => {
    let left = parseUnary();
    while (isWord('AND')) { next(); left = { kind: 'and', left, right: parseUnary() }; }
    return left;
  };
  const parseOr = (): Expr => {
    let left = parseAnd();
    while (isWord('OR')) { next(); left = { kind: 'or', left, right: parseAnd() }; }
    return left;
  };

  const result: ParsedJql = { orderBy: [] };
  if (pos < tokens.length && !isWord('ORDER')) result.where = parseOr();
  if (isWord('ORDER')) {
    next();
    if (!isWord('BY')) throw new JqlError("Error in the JQL Query: Expecting 'BY' after 'ORDER'.");
    next();
    do {
      if (peek()?.type === 'comma') next();
      const field = next().value.toLowerCase();
      let direction: 'ASC' | 'DESC' = 'ASC';
      if (isWord('ASC') || isWord('DESC')) direction = next().value.toUpperCase() as 'ASC' | 'DESC';
      result.orderBy.push({ field, direction });
    } while (peek()?.type === 'comma');
  }
  if (pos < tokens.length) throw new JqlError(`Error in the JQL Query: Expecting end of query but got '${peek()?.value}'.`);
  return result;
}

export function matchesJql(parsed: ParsedJql, issue: JqlIssueView, now: Date = new Date()): boolean {
  return parsed.where ? evaluate(parsed.where, issue, now) : true;
}

export function compareForOrder(parsed: ParsedJql, a: JqlIssueView, b: JqlIssueView): number {
  const order = parsed.orderBy.length ? parsed.orderBy : [{ field: 'key', direction: 'ASC' as const }];
  for (const { field, direction } of order) {
    const diff = compareValues(sortValue(a, field), sortValue(b, field));
    if (diff !== 0) return direction === 'ASC' ? diff : -diff;
  }
  return 0;
}

function sortValue(issue: JqlIssueView, field: string): number | string {
  switch (field) {
    case 'created': case 'createddate': return issue.created.getTime();
    case 'updated': case 'updateddate': return issue.updated.getTime();
    case 'key': case 'issuekey': case 'id': return Number(issue.id);
    default: return String(fieldValues(issue, field)[0] ?? '');
  }
}

function compareValues(a: number | string, b: number | string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function fieldValues(issue: JqlIssueView, field: string): string[] {
  switch (field) {
    case 'project': return [issue.project];
    case 'key': case 'issuekey': return [issue.key];
    case 'id': return [issue.id];
    case 'labels': return issue.labels;
    case 'status': return [issue.status];
    case 'statuscategory': return [issue.statusCategory];
    case 'issuetype': case 'type': return [issue.issuetype];
    case 'parent': return issue.parent ? [issue.parent] : [];
    case 'summary': return [issue.summary];
    case 'text': return [issue.summary, issue.text];
    default: return [];
  }
}

function evaluate(expr: Expr, issue: JqlIssueView, now: Date): boolean {
  switch (expr.kind) {
    case 'and': return evaluate(expr.left, issue, now) && evaluate(expr.right, issue, now);
    case 'or': return evaluate(expr.left, issue, now) || evaluate(expr.right, issue, now);
    case 'not': return !evaluate(expr.inner, issue, now);
    case 'cmp': return compare(expr, issue, now);
  }
}

function compare(expr: Extract<Expr, { kind: 'cmp' }>, issue: JqlIssueView, now: Date): boolean {
  const { field, op, values } = expr;
  if (['created', 'createddate', 'updated', 'updateddate'].includes(field)) {
    const actual = (field.startsWith('created') ? issue.created : issue.updated).getTime();
    const wanted = parseJqlDate(values[0] ?? '', now).getTime();
    switch (op) {
      case '>': return actual > wanted;
      case '>=': return actual >= wanted;
      case '<': return actual < wanted;
      case '<=': return actual <= wanted;
      case '=': return actual === wanted;
      case '!=': return actual !== wanted;
      default: throw new JqlError(`The operator '${op}' is not supported by the '${field}' field.`);
    }
  }
  const actual = fieldValues(issue, field).map((value) => value.toLowerCase());
  const wanted = values.map((value) => value.toLowerCase());
  switch (op) {
    case 'is empty': return actual.length === 0;
    case 'is not empty': return actual.length > 0;
    case '=': return actual.includes(wanted[0] ?? '');
    case '!=': return !actual.includes(wanted[0] ?? '');
    case 'in': return wanted.some((value) => actual.includes(value));
    case 'not in': return !wanted.some((value) => actual.includes(value));
    case '~': return actual.some((value) => value.includes((wanted[0] ?? '').replace(/[*?]/g, '')));
    case '!~': return !actual.some((value) => value.includes((wanted[0] ?? '').replace(/[*?]/g, '')));
    default: throw new JqlError(`The operator '${op}' is not supported by the '${field}' field.`);
  }
}

/** `2024-05-01`, `2024-05-01 10:30`, or a relative offset such as `-15m`, `-2h`, `-1d`, `-1w`. */
export function parseJqlDate(value: string, now: Date): Date {
  const relative = /^([+-]?\d+)\s*([mhdw])$/i.exec(value.trim());
  if (relative) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[(relative[2] ?? 'm').toLowerCase() as 'm'];
    return new Date(now.getTime() + Number(relative[1]) * unit);
  }
  const absolute = /^(\d{4})[-/](\d{2})[-/](\d{2})(?:\s+(\d{2}):(\d{2}))?$/.exec(value.trim());
  if (absolute) {
    const [, y, mo, d, h = '00', mi = '00'] = absolute;
    return new Date(`${y}-${mo}-${d}T${h}:${mi}:00Z`);
  }
  throw new JqlError(`Date value '${value}' for field is invalid. Valid formats include: 'yyyy/MM/dd HH:mm', 'yyyy-MM-dd HH:mm', 'yyyy/MM/dd', 'yyyy-MM-dd', or a period format e.g. '-5d', '4w 2d'.`);
}
