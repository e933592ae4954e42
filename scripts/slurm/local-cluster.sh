#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for trying the job-array
# example of docs/SWEEPS.md and for its test (python/tests/test_slurm.py).
# Needs root and Debian's slurmctld, slurmd, slurm-client and munge
# packages. Usage: scripts/slurm/local-cluster.sh start | stop
set -euo pipefail
state=/tmp/rtsync-slurm
case "${1:-start}" in
start)
  mkdir -p "$state"/{ctld,d} /etc/slurm /etc/munge /var/log/munge /run/munge
  if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  fi
  chown -R munge:munge /etc/munge /var/log/munge /run/munge 2>/dev/null || true
  chmod 400 /etc/munge/munge.key
  pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged
  host=$(hostname -s)
  cpus=$(nproc)
  cat > /etc/slurm/slurm.conf <<CONF
ClusterName=rtsync-local
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/d
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  pgrep -x slurmctld >/dev/null || /usr/sbin/slurmctld
  pgrep -x slurmd >/dev/null || /usr/sbin/slurmd
  for _ in $(seq 60); do
    if sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
      echo "slurm: one node ($host, $cpus CPUs) up"
      exit 0
    fi
    sleep 1
  done
  echo "slurm did not come up; see $state/*.log" >&2
  exit 1
  ;;
stop)
  pkill -x slurmd || true
  pkill -x slurmctld || true
  ;;
*)
  echo "usage: $0 start | stop" >&2
  exit 2
  ;;
esac
