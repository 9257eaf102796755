import { type LoadTarget, targetEngine, type WarehouseDrivers } from './engines.js';
import type { Warehouse } from './warehouse.js';

export type { WarehouseDrivers };

/** Opens the target and takes its load lock (a LockHeldError when another load holds it). */
export async function openWarehouse(target: LoadTarget, drivers: WarehouseDrivers = {}): Promise<Warehouse> {
  return targetEngine(target).open(target, drivers);
}
