#include "top/top.hpp"

#include "base/base.hpp"
#include "store/store.hpp"
