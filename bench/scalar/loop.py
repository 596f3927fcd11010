# Scalar loop: the sum of squares below one million (same as loop.tr).
s = 0
for i in range(1_000_000):
    s += i * i
print(s)
