/** Landis and Koch's verbal bands for kappa-type coefficients. */

export const LANDIS_KOCH_CITATION =
  "Landis, J. R. and Koch, G. G. (1977). The measurement of observer agreement for categorical data. Biometrics 33(1), 159-174.";

export type Band = "poor" | "slight" | "fair" | "moderate" | "substantial" | "almost perfect";

export function landisKoch(value: number): Band {
  if (value < 0) return "poor";
  if (value <= 0.2) return "slight";
  if (value <= 0.4) return "fair";
  if (value <= 0.6) return "moderate";
  if (value <= 0.8) return "substantial";
  return "almost perfect";
}
