#pragma once
#include "top/top.hpp"
