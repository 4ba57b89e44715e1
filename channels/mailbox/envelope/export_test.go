package envelope

// Both decoding and encoding paths, for the tests that compare them.
var (
	DecodeStd         = decodeStd
	DecodeFast        = decodeFast
	EncodeStd         = encodeStd
	EncodeCompactStd  = encodeCompactStd
	EncodeCompactFast = encodeCompactFast
)
