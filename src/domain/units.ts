/**
 * A size in decimal units as people read them ("104.9 MB", "1 kB", "512 bytes"), one decimal at
 * most. Decimal like the web app's, so a file the app shows as 105.9 MB is plainly over a 104.9 MB limit.
 */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  const shown = unit === 0 ? String(value) : String(Math.round(value * 10) / 10);
  return `${shown} ${unit === 0 && value === 1 ? 'byte' : units[unit]}`;
}
