/* SPDX-License-Identifier: MIT */
/*
 * An LXRT program as RTAI users write them, ported to rtf by changing its
 * include line only (test_rtai_port.py).  Period 1 ms; prints "hard N" once
 * periodic, "done" at the end; LOOPS periods (argument 1, default 1000).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <rtf/rtai.h>   /* was: #include <rtai_lxrt.h> */

#define TICK_TIME 1000000

int main(int argc, char *argv[])
{
	RT_TASK *task;
	RTIME tick_period;
	int i, r, loops = argc > 1 ? atoi(argv[1]) : 1000, overruns = 0;

	if (!(task = rt_task_init_schmod(nam2num("PORT"), 0, 0, 0, SCHED_FIFO, 0xF))) {
		printf("CANNOT INIT PORT TASK\n");
		exit(1);
	}
	mlockall(MCL_CURRENT | MCL_FUTURE);
	rt_allow_nonroot_hrt();
	rt_set_oneshot_mode();
	tick_period = start_rt_timer(nano2count(TICK_TIME));
	rt_make_hard_real_time();
	r = rt_task_make_periodic(task, rt_get_time() + 100 * tick_period, tick_period);
	if (r != 0) {
		printf("MAKE PERIODIC FAILED %d\n", r);
		rt_make_soft_real_time();
		rt_task_delete(task);
		exit(1);
	}
	printf("hard %d\n", rt_is_hard_real_time(task));
	fflush(stdout);
	for (i = 0; i < loops; i++)
		if (rt_task_wait_period() == RTE_TMROVRN)
			overruns++;
	rt_make_soft_real_time();
	stop_rt_timer();
	rt_task_delete(task);
	printf("done %d periods, %d overruns\n", loops, overruns);
	return 0;
}
