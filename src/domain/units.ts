/**
 * A size as people read them ("100 MB", "1.5 kB", "512 bytes"), one decimal at most, in steps of
 * 1024 as the shop's computers count them: the 100 MiB limit reads "100 MB", not "104.9 MB"
 * (issue 33). The web app counts alike (web/src/format.ts), so a file it shows as 100.5 MB is
 * plainly over a 100 MB limit.
 */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const shown = unit === 0 ? String(value) : String(Math.round(value * 10) / 10);
  return `${shown} ${unit === 0 && value === 1 ? 'byte' : units[unit]}`;
}
