#pragma once

#include "base/base.hpp"
