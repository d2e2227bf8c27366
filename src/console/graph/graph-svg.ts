import { html, type SafeHtml } from '../html';
import type { GraphLayout, LaidOutEdge, LaidOutNode } from './definition-layout';

const round = (n: number) => Math.round(n * 10) / 10;

function edgePath(points: LaidOutEdge['points']): string {
  return points.map((p, i) => `${i === 0 ? 'M' : 'L'}${round(p.x)} ${round(p.y)}`).join(' ');
}

function nodeShape(node: LaidOutNode): SafeHtml {
  const { x, y, width: w, height: h } = node;
  switch (node.kind) {
    case 'router':
      return html`<polygon class="shape" points="${[`${round(x)},${round(y - h / 2)}`, `${round(x + w / 2)},${round(y)}`, `${round(x)},${round(y + h / 2)}`, `${round(x - w / 2)},${round(y)}`].join(' ')}"/>`;
    case 'end':
      return html`<rect class="shape" x="${round(x - w / 2)}" y="${round(y - h / 2)}" width="${round(w)}" height="${round(h)}" rx="${round(h / 2)}"/>`;
    case 'gate':
      return html`<rect class="shape" x="${round(x - w / 2)}" y="${round(y - h / 2)}" width="${round(w)}" height="${round(h)}" rx="2"/><rect class="inner" x="${round(x - w / 2 + 3)}" y="${round(y - h / 2 + 3)}" width="${round(w - 6)}" height="${round(h - 6)}" rx="1"/>`;
    default:
      return html`<rect class="shape" x="${round(x - w / 2)}" y="${round(y - h / 2)}" width="${round(w)}" height="${round(h)}" rx="8"/>`;
  }
}

function nodeClasses(node: LaidOutNode): string {
  return ['node', node.kind, node.current ? 'current' : '', node.visited ? 'visited' : '', node.change ?? ''].filter(Boolean).join(' ');
}

function renderNode(node: LaidOutNode): SafeHtml {
  const second = node.tickets !== undefined ? `${node.role} · ${node.tickets} ticket${node.tickets === 1 ? '' : 's'}` : node.role;
  return html`<g class="${nodeClasses(node)}" data-node="${node.id}" data-kind="${node.kind}"${node.current ? html` data-current="true" aria-current="step"` : ''}${node.change ? html` data-change="${node.change}"` : ''}>
<title>${node.id} (${node.kind}: ${node.role})${node.current ? ' — the ticket is here' : ''}${node.change ? ` — ${node.change}` : ''}</title>
${nodeShape(node)}
<text x="${round(node.x)}" y="${round(node.y - (node.kind === 'end' ? 0 : 4))}" class="label">${node.id}</text>
${node.kind === 'end' ? '' : html`<text x="${round(node.x)}" y="${round(node.y + 12)}" class="role">${second}</text>`}
</g>`;
}

function renderEdge(edge: LaidOutEdge): SafeHtml {
  const classes = ['edge', edge.taken > 0 ? 'taken' : '', edge.detour ? 'detour' : '', edge.loop ? 'loop' : '', edge.extra ? 'extra' : '', edge.change ?? ''].filter(Boolean).join(' ');
  const middle = edge.points[Math.floor(edge.points.length / 2)];
  return html`<g class="${classes}" data-from="${edge.from}" data-to="${edge.to}" data-taken="${edge.taken}"${edge.change ? html` data-change="${edge.change}"` : ''}>
<title>${edge.from} → ${edge.to} (${edge.label})${edge.taken > 0 ? `, taken ${edge.taken}×` : ''}${edge.detour ? ', a detour' : ''}${edge.change ? `, ${edge.change}` : ''}</title>
<path d="${edgePath(edge.points)}" marker-end="url(#arrow${edge.taken > 0 ? '-taken' : ''})"/>
${middle ? html`<text x="${round(middle.x + 4)}" y="${round(middle.y - 3)}" class="outcome">${edge.label}${edge.taken > 1 ? ` ×${edge.taken}` : ''}</text>` : ''}
</g>`;
}

/**
 * The laid-out definition as inline SVG. Node ids, roles and outcomes come from definitions anyone with the
 * publishing command may write, so they go through the escaping `html` template like ticket text. The current node
 * carries `data-current="true"` (and the class `current`), taken edges the class `taken`, detours `detour`; on a
 * comparison of two revisions, nodes and edges carry `data-change` and the class `added`, `removed` or `changed`.
 */
export function graphSvg(layout: GraphLayout, title: string): SafeHtml {
  return html`<svg class="graph" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${title}" width="${layout.width}" height="${layout.height}" viewBox="0 0 ${layout.width} ${layout.height}">
<defs>
<marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" class="arrow"/></marker>
<marker id="arrow-taken" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" class="arrow taken"/></marker>
</defs>
${layout.edges.map(renderEdge)}
${layout.nodes.map(renderNode)}
</svg>`;
}
