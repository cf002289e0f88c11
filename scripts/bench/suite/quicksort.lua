-- quicksort.c in Lua (the generator in C's 32-bit int arithmetic).
local N = 200000
local a = {}
local function sort(lo, hi)
  while lo < hi do
    local p = a[(lo + hi) // 2]
    local i, j = lo, hi
    while i <= j do
      while a[i] < p do i = i + 1 end
      while a[j] > p do j = j - 1 end
      if i <= j then
        a[i], a[j] = a[j], a[i]
        i = i + 1
        j = j - 1
      end
    end
    if j - lo < hi - i then
      sort(lo, j)
      lo = i
    else
      sort(i, hi)
      hi = j
    end
  end
end
local x = 12345
for i = 0, N - 1 do
  x = ((x * 1103515245 + 12345) & 0xffffffff) & 2147483647
  a[i] = x % 1000000
end
sort(0, N - 1)
local sum = 0
for i = 1, N - 1 do
  if a[i - 1] > a[i] then sum = -1 end
end
print(string.format("sorted %d, first %d, middle %d, last %d", sum == 0 and 1 or 0, a[0], a[N // 2], a[N - 1]))
