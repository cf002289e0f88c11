#pragma once
int once_value = 11;
