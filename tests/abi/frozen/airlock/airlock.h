/* frozen/airlock/airlock.h — puts the frozen ABI 1.0 header where plugin code
 * looks for <airlock/airlock.h>, for the frozen_abi_1_0 fixture only. */
#include "../../airlock_1_0.h"
#define AIRLOCK_FROZEN_ABI_1_0 1
