/** This process's own peak RSS in MB (VmHWM; see peak-rss.mjs). */
export function peakRssMb(): number;
