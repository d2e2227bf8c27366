/** `[#####-----] 2/4 case-2` for a dataset run; the bar is `width` characters. */
export function progressLine(done: number, total: number, label: string, width = 20): string {
  const filled = total === 0 ? width : Math.round((Math.min(done, total) / total) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}${label ? ` ${label}` : ''}`;
}
