/** Whether this host can run the sensor: root, a kernel with BTF (for CO-RE), and the addon built. */
import { existsSync } from 'node:fs';
import { loadSensorAddon } from './binding.js';

/** Where the kernel describes its own types; CO-RE programs are relocated against it. */
export const kernelBtfPath = '/sys/kernel/btf/vmlinux';

/** Why the sensor cannot run here, or undefined when it can. */
export function sensorUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'the sensor needs root; the daemon runs without it';
  if (!existsSync(kernelBtfPath))
    return `the kernel has no BTF (${kernelBtfPath}); the daemon runs without the sensor`;
  const addon = loadSensorAddon();
  return 'unavailable' in addon ? addon.unavailable : undefined;
}
