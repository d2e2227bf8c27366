/**
 * The console's only script: every few seconds it fetches the fragment named by `data-refresh` on `#live` (an
 * address under /console/, the same filters) and swaps it in, keeping the scroll position. It stops while the tab is
 * hidden. A panel that scrolls on its own (`data-scroll-key`) keeps its scroll too: the swap replaces it with a new
 * element, which would start at the left and top again. Without script the page is the same, only not refreshed;
 * the fragment is server-rendered and escaped like the page, and the Content-Security-Policy lets no script in it run.
 */
export const LIVE_REFRESH_SCRIPT = `(() => {
  const live = document.getElementById('live');
  const source = live && live.getAttribute('data-refresh');
  if (!source || !source.startsWith('/console/')) return;
  const every = Number(live.getAttribute('data-every') || '5000');
  const status = document.getElementById('refresh-status');
  let busy = false;
  const refresh = async () => {
    if (busy || document.hidden) return;
    busy = true;
    try {
      const answer = await fetch(source, { credentials: 'same-origin', headers: { accept: 'text/html' } });
      if (!answer.ok) throw new Error('HTTP ' + answer.status);
      const text = await answer.text();
      const x = window.scrollX, y = window.scrollY;
      const panels = new Map();
      live.querySelectorAll('[data-scroll-key]').forEach((panel) => {
        if (panel.scrollLeft || panel.scrollTop) panels.set(panel.getAttribute('data-scroll-key'), [panel.scrollLeft, panel.scrollTop]);
      });
      live.innerHTML = text;
      live.querySelectorAll('[data-scroll-key]').forEach((panel) => {
        const at = panels.get(panel.getAttribute('data-scroll-key'));
        if (at) { panel.scrollLeft = at[0]; panel.scrollTop = at[1]; }
      });
      window.scrollTo(x, y);
      if (status) status.textContent = 'live: updated ' + new Date().toLocaleTimeString();
    } catch (error) {
      if (status) status.textContent = 'live refresh paused: ' + error.message;
    } finally {
      busy = false;
    }
  };
  setInterval(refresh, every);
  document.addEventListener('visibilitychange', refresh);
})();`;
