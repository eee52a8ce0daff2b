// Orbital period from orbital distance, using Kepler's third law.
//
//   T = 2π · sqrt(a³ / GM)
//
// Units: a is the semi-major axis in kilometres (converted to metres below),
// GM is the central body's standard gravitational parameter in m³/s²,
// and T comes out in seconds, which we convert to days (86 400 s).
// For a circular-ish orbit, the "mean distance from Sun" in data/planets.xlsx
// is close enough to the semi-major axis.

import { pathToFileURL } from "node:url";

export const GM_SUN = 1.32712440018e20; // m^3 s^-2
export const AU_KM = 149_597_870.7; // 1 astronomical unit in km
const SECONDS_PER_DAY = 86_400;

export function orbitalPeriodDays(distanceKm, gm = GM_SUN) {
  const a = distanceKm * 1000; // km -> m
  const seconds = 2 * Math.PI * Math.sqrt(a ** 3 / gm);
  return seconds / SECONDS_PER_DAY;
}

// Shortcut for bodies orbiting the Sun: T (years) = a (AU) ^ 1.5
export function orbitalPeriodYears(distanceAU) {
  return distanceAU ** 1.5;
}

// Run directly (`node scripts/orbit.js`) to compare with the fact-sheet values.
if (
  process.argv[1] &&
  import.meta.url === pathToFileURL(process.argv[1]).href
) {
  // mean distance from the Sun in 10^6 km (data/planets.xlsx)
  const planets = {
    Mercury: 57.9,
    Earth: 149.6,
    Mars: 228.0,
    Jupiter: 778.5,
    Neptune: 4515.0,
  };
  for (const [name, millionKm] of Object.entries(planets)) {
    const days = orbitalPeriodDays(millionKm * 1e6);
    console.log(`${name.padEnd(8)} ${days.toFixed(1).padStart(8)} days`);
  }
}
