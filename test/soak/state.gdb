# Copyright (c) 2026 The FT-MPICH authors. See LICENSE.
# What soak.py --backtrace prints of a hung process besides its stack:
# ftdev's and the recovery layer's state.
set pagination off
thread apply all bt 30
printf "---- state ----\n"
print MPIDI_FTDEV_global.world.my_pid
print MPIDI_FTDEV_global.epoch.current
print MPIDI_FTDEV_global.failures.log_len
print *MPIDI_FTDEV_global.failures.log@MPIDI_FTDEV_global.failures.log_len
print MPIDI_FTDEV_global.failures.progress_checks
print *MPIDI_FTDEV_global.peers.state@MPIDI_FTDEV_global.world.num_pids
print *MPIDI_FTDEV_global.peers.finalizing@MPIDI_FTDEV_global.world.num_pids
print ft
print in_recovery
printf "---- tracked requests ----\n"
print *MPIDI_FTDEV_global.peers.reqs@MPIDI_FTDEV_global.world.num_pids
print MPIDI_FTDEV_global.peers.wildcard_reqs
if MPIDI_FTDEV_global.peers.wildcard_reqs
  print *MPIDI_FTDEV_global.peers.wildcard_reqs
end
printf "---- agreement ----\n"
print ag
if ag.n > 0
  print *ag.join_epoch@ag.n
end
printf "---- waits ----\n"
frame function MPID_Waitall
print *request_ptrs[0]
print request_ptrs[0]->dev.ch4.netmod.ftdev
print *request_ptrs[0]->dev.ch4.netmod.ftdev.u.ucp_request
print *request_ptrs[1]
print request_ptrs[1]->dev.ch4.netmod.ftdev
