import { describe, expect, it } from 'vitest';
import { appendTimeline, emptyTimeline, pageTimeline } from '../../../../workflows/read-model/timeline';

function timelineWith(count: number) {
  const timeline = emptyTimeline();
  for (let i = 0; i < count; i += 1) {
    appendTimeline(timeline, { kind: 'observation_received', occurred_at: '2026-11-23T08:00:00.000Z', status: 'recorded', summary: `#${i}`, details: {} });
  }
  return timeline;
}

describe('pageTimeline', () => {
  it('pages with next_cursor until the end, then null', () => {
    const timeline = timelineWith(5);
    const first = pageTimeline(timeline, 0, 2);
    expect(first.entries.map((e) => e.event_id)).toEqual([1, 2]);
    expect(first.next_cursor).toBe(2);
    const last = pageTimeline(timeline, 4, 2);
    expect(last.entries.map((e) => e.event_id)).toEqual([5]);
    expect(last.next_cursor).toBeNull();
    expect(last.total).toBe(5);
  });

  it('never returns more than 200 entries', () => {
    expect(pageTimeline(timelineWith(250), 0, 1000).entries).toHaveLength(200);
  });

  it('keeps cursors as offsets into the full history after trimming', () => {
    const timeline = timelineWith(6);
    timeline.entries.splice(0, 3);
    timeline.trimmed = 3;
    const page = pageTimeline(timeline, 0, 10);
    expect(page.entries.map((e) => e.event_id)).toEqual([4, 5, 6]);
    expect(pageTimeline(timeline, 4, 10).entries.map((e) => e.event_id)).toEqual([5, 6]);
  });

  it('a cursor past the end returns an empty last page', () => {
    expect(pageTimeline(timelineWith(2), 9, 10)).toMatchObject({ entries: [], next_cursor: null, total: 2 });
  });
});
