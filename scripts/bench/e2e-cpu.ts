/**
 * @module e2e-cpu — how much CPU *other* processes took during a measurement, so the
 * end-to-end benchmark can tell a clean run from one that shared the machine (Linux /proc;
 * elsewhere it reports nothing and every run counts as clean).
 *
 * Foreign CPU = all busy CPU time of the host − the time of the benchmark's own processes
 * (driver, redis-server, worker processes), in cores (1.0 = one core busy all along).
 */
import { readFileSync } from "node:fs";

const HZ = 100; // USER_HZ: /proc reports clock ticks of 10 ms on Linux

function hostBusyTicks(): number | null {
  try {
    const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1)
      .map(Number);
    // user nice system idle iowait irq softirq steal ...: busy is all but idle and iowait.
    return cpu.reduce((a, b) => a + b, 0) - cpu[3] - (cpu[4] ?? 0);
  } catch {
    return null;
  }
}

function processTicks(pid: number): number {
  try {
    // Fields after the command name (which may contain spaces): utime is 14th, stime 15th.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0; // exited: its last ticks are lost, which only overstates foreign CPU
  }
}

/** CPU time (user + system) a process has used so far, in µs; 0 without /proc. */
export function processCpuMicros(pid: number): number {
  return processTicks(pid) * (1e6 / HZ);
}

/** Starts watching; `stop()` returns the foreign CPU in cores, or null without /proc. */
export function watchForeignCpu(ownPids: () => number[]): { stop(): number | null } {
  const t0 = performance.now();
  const busy0 = hostBusyTicks();
  const pids = ownPids();
  const own0 = pids.map(processTicks);
  return {
    stop() {
      const busy1 = hostBusyTicks();
      if (busy0 === null || busy1 === null) return null;
      const own = pids.reduce((sum, pid, i) => sum + processTicks(pid) - own0[i], 0);
      const seconds = (performance.now() - t0) / 1000;
      return Math.max(0, (busy1 - busy0 - own) / HZ / seconds);
    },
  };
}
