package datasets

// Where the files come from. The sizes and SHA-256 sums in the manifest are
// those of the copies the paper's experiments were reproduced with (the
// project's shared data directory); a download whose content differs from
// them is rejected.
const (
	// BoxobanBase is DeepMind's Boxoban levels repository
	// (github.com/google-deepmind/boxoban-levels, formerly
	// github.com/deepmind/boxoban-levels), branch master. The paper's
	// Sokoban training set is unfiltered/train/000.txt to 049.txt (50,000
	// levels) and its test set unfiltered/test/000.txt (1000 levels).
	BoxobanBase = "https://raw.githubusercontent.com/google-deepmind/boxoban-levels/master/"

	// HLevinBase is the paper authors' code release
	// (github.com/levilelis/h-levin), pinned to the commit whose layout the
	// STP paths below were checked against: the 5x5 training problems are
	// problems/stp/puzzles_5x5_train/puzzles_50000 and the test problems
	// problems/stp/puzzles_5x5_test/puzzles_1000, one problem per line.
	HLevinBase = "https://raw.githubusercontent.com/levilelis/h-levin/6cb8d13299b0f0575c460626cc238eb1cf5ae46f/"

	// ApacheLicenseURL is the text of the Apache License 2.0, under which
	// the STP and Witness files are distributed. The authors' release has
	// no LICENSE file of its own to download.
	ApacheLicenseURL = "https://www.apache.org/licenses/LICENSE-2.0.txt"
)

// manifest lists every file of every data set, in the order Fetch and
// Import process them.
//
// The Witness files have no URL: the authors' release stores those
// problems one file per puzzle (problems/witness/puzzles_4x4_50k_train/
// and puzzles_4x4_50k_test/), not as the single files below, whose
// problem order cannot be rebuilt from that layout. They can only be
// imported (Import) or fetched from a mirror (Mirror).
var manifest = []File{
	{"sokoban", "boxoban/LICENSE", BoxobanBase + "LICENSE", 11357, "c71d239df91726fc519c6eb72d318ec65820627232b2f796219e87dcf35d0ab4"},
	{"sokoban", "boxoban/unfiltered/train/000.txt", BoxobanBase + "unfiltered/train/000.txt", 116890, "674dda499261deface252c90077ae67181b5c7704c235baf0dd0bd2d16bf072e"},
	{"sokoban", "boxoban/unfiltered/train/001.txt", BoxobanBase + "unfiltered/train/001.txt", 116890, "5da3fe47340a1ea2683af09e99b31b3d2c3454c29c9d746c3b72d9d78375a869"},
	{"sokoban", "boxoban/unfiltered/train/002.txt", BoxobanBase + "unfiltered/train/002.txt", 116890, "61dcc62f2c8165f924058534b002eada3ced7a06292010a1271c8ba67d6a0259"},
	{"sokoban", "boxoban/unfiltered/train/003.txt", BoxobanBase + "unfiltered/train/003.txt", 116890, "397d92b0ea9d8523d3396f8b49be664028e1b4ab5b666ad9f8a5e3f2120a6222"},
	{"sokoban", "boxoban/unfiltered/train/004.txt", BoxobanBase + "unfiltered/train/004.txt", 116890, "5aae20e99b62d9c04a873de20a8d4d2bfbb0f509026d6c9c11a49fe773c955f4"},
	{"sokoban", "boxoban/unfiltered/train/005.txt", BoxobanBase + "unfiltered/train/005.txt", 116890, "b2b7a762b7ae46e86dfeab84797cb0e8a3c7387a5f66cc9413347e56f8535d7f"},
	{"sokoban", "boxoban/unfiltered/train/006.txt", BoxobanBase + "unfiltered/train/006.txt", 116890, "a91ef95d7eac0c862c2946daf10cd3dcc95233f10171285b8ebc2256648679ed"},
	{"sokoban", "boxoban/unfiltered/train/007.txt", BoxobanBase + "unfiltered/train/007.txt", 116890, "f5547674c26f5235c1c1d95f81ad782795ccd5236034e768425cb759ae288e24"},
	{"sokoban", "boxoban/unfiltered/train/008.txt", BoxobanBase + "unfiltered/train/008.txt", 116890, "058695f1d5f277d5e5c1f3bcea4346cefac57f6b52802f06ce162d7f53367ebc"},
	{"sokoban", "boxoban/unfiltered/train/009.txt", BoxobanBase + "unfiltered/train/009.txt", 116890, "1ae520b7f24927597f9ca5eeb8829a0cec014468b9561109a634b1a63113245a"},
	{"sokoban", "boxoban/unfiltered/train/010.txt", BoxobanBase + "unfiltered/train/010.txt", 116890, "e92e862e163b2bb6ccef645aecf9ae9646e613c7207a385cd958aa6fdf091664"},
	{"sokoban", "boxoban/unfiltered/train/011.txt", BoxobanBase + "unfiltered/train/011.txt", 116890, "0e8c7d7d3c932e48f9e62b51d9fd1dba60d624092e8032dd5412f29b600b765f"},
	{"sokoban", "boxoban/unfiltered/train/012.txt", BoxobanBase + "unfiltered/train/012.txt", 116890, "a6ab70e94d330c9b0e8dff5326fd30e71eaab830c5dae1e772dd06a051eb82be"},
	{"sokoban", "boxoban/unfiltered/train/013.txt", BoxobanBase + "unfiltered/train/013.txt", 116890, "16278c64aaec3800188c5f8a0c501b09a3d9c4d7d05a67350b092b710246e78a"},
	{"sokoban", "boxoban/unfiltered/train/014.txt", BoxobanBase + "unfiltered/train/014.txt", 116890, "4261ae0915d0623a285b3a8c8396a581ff09f684e93cb4fc14e7167fa0181e84"},
	{"sokoban", "boxoban/unfiltered/train/015.txt", BoxobanBase + "unfiltered/train/015.txt", 116890, "652f4da193a0273977f1588f68af9af4c78f6f920da72ee0afa73eaefd13a774"},
	{"sokoban", "boxoban/unfiltered/train/016.txt", BoxobanBase + "unfiltered/train/016.txt", 116890, "82a8f98f54c90f05e903111d2bf42518a042d736eb85e35dbd27c374a11aaa5f"},
	{"sokoban", "boxoban/unfiltered/train/017.txt", BoxobanBase + "unfiltered/train/017.txt", 116890, "8b6aa97ff9840226a780ee6f49109b674ddd851f3369bc13bb1d60a2ae7aa0ad"},
	{"sokoban", "boxoban/unfiltered/train/018.txt", BoxobanBase + "unfiltered/train/018.txt", 116890, "089c63945f70035a9f052c513e278d50e18782c7bc26aa12211cc21eebab6bb4"},
	{"sokoban", "boxoban/unfiltered/train/019.txt", BoxobanBase + "unfiltered/train/019.txt", 116890, "219f46e3bd227b59aafdb3aa2f0087d006be40e23139e33e67f16c1bf52219ee"},
	{"sokoban", "boxoban/unfiltered/train/020.txt", BoxobanBase + "unfiltered/train/020.txt", 116890, "e373459da1d808832fb596f9cb7014d4d5972566dfece46b882870be7c0a3ba4"},
	{"sokoban", "boxoban/unfiltered/train/021.txt", BoxobanBase + "unfiltered/train/021.txt", 116890, "3b3ad8b9e393dd0a74f021fe9fe8ae4f387fe6ca500c9d36540b8b4c3eb2831d"},
	{"sokoban", "boxoban/unfiltered/train/022.txt", BoxobanBase + "unfiltered/train/022.txt", 116890, "c1999f16e3cf46f04ff5cf5169c77f72cd675053750ea44df21b8146c04650b3"},
	{"sokoban", "boxoban/unfiltered/train/023.txt", BoxobanBase + "unfiltered/train/023.txt", 116890, "4766658b21270cc6637d70648d9ae442dac63d1a6e84d89c01efd2031c021e34"},
	{"sokoban", "boxoban/unfiltered/train/024.txt", BoxobanBase + "unfiltered/train/024.txt", 116890, "d1a668d511b78386972f94b6ef2b007dfed7a214fcef74c085bbdf5495eab853"},
	{"sokoban", "boxoban/unfiltered/train/025.txt", BoxobanBase + "unfiltered/train/025.txt", 116890, "2c5cfc13990127217a3f351df459010563fb3536faec109e065f8b2432c2665e"},
	{"sokoban", "boxoban/unfiltered/train/026.txt", BoxobanBase + "unfiltered/train/026.txt", 116890, "74b26ecfbdee699c967ec9e65db2be232e329fc0e401c5432e4f310a411787ce"},
	{"sokoban", "boxoban/unfiltered/train/027.txt", BoxobanBase + "unfiltered/train/027.txt", 116890, "247389eb12b71b10ddee5cf17c4f183c3eaef5a6f7165215c40b78184bbef415"},
	{"sokoban", "boxoban/unfiltered/train/028.txt", BoxobanBase + "unfiltered/train/028.txt", 116890, "35eb000c103042116e46ecc45d699dafa7d8e1ac2ebc4d923df66f8738e930e0"},
	{"sokoban", "boxoban/unfiltered/train/029.txt", BoxobanBase + "unfiltered/train/029.txt", 116890, "7811f6ff93287213ac04df1238b31977987d1a6dcf6e3be212ab026872696a0d"},
	{"sokoban", "boxoban/unfiltered/train/030.txt", BoxobanBase + "unfiltered/train/030.txt", 116890, "dd5d0c046f1325d6a8fb6a908ad5b82bef8510ca0adf9822aa272941de59da6a"},
	{"sokoban", "boxoban/unfiltered/train/031.txt", BoxobanBase + "unfiltered/train/031.txt", 116890, "0b0d700b382f56c4526362db4d43b99976fafe89169202f269cc705148bc67c5"},
	{"sokoban", "boxoban/unfiltered/train/032.txt", BoxobanBase + "unfiltered/train/032.txt", 116890, "a24f067677720d93f4c222d0ec9ebaeda98b50f7f136bf6a31ae4f4d71088314"},
	{"sokoban", "boxoban/unfiltered/train/033.txt", BoxobanBase + "unfiltered/train/033.txt", 116890, "d12c5d037c4b31441cd8fa72b25b1d0ad52b4db23455fb7733ac8a504471b521"},
	{"sokoban", "boxoban/unfiltered/train/034.txt", BoxobanBase + "unfiltered/train/034.txt", 116890, "92d3ec793b1aa88902230f4b1263c81e7fa4f45a6752916be4e784967d24ac1c"},
	{"sokoban", "boxoban/unfiltered/train/035.txt", BoxobanBase + "unfiltered/train/035.txt", 116890, "3a70d903fcbbd3d2580a59116849ef7d2147ab0a566df86dde13f26e704fe163"},
	{"sokoban", "boxoban/unfiltered/train/036.txt", BoxobanBase + "unfiltered/train/036.txt", 116890, "5902d11c2cc1608fe2b190fd580f4c414c28b1fbfd721817207f4cbedd03702c"},
	{"sokoban", "boxoban/unfiltered/train/037.txt", BoxobanBase + "unfiltered/train/037.txt", 116890, "a75b7742385c84e440cf76f15e2120aff5ad0eebe4d827f68ecc91a524ad6443"},
	{"sokoban", "boxoban/unfiltered/train/038.txt", BoxobanBase + "unfiltered/train/038.txt", 116890, "50e7f7f1228aad63bffa9901cba8afcdceb47f925f382f4396c36e062278f0b3"},
	{"sokoban", "boxoban/unfiltered/train/039.txt", BoxobanBase + "unfiltered/train/039.txt", 116890, "ba0d4777be8da7de25146813e38de512232d8c119a2f3982fe58c15c7c8222f3"},
	{"sokoban", "boxoban/unfiltered/train/040.txt", BoxobanBase + "unfiltered/train/040.txt", 116890, "beaed3449baa88be268e97f6938f0ab1c2fb09d6f3e3e726bd0127f056cf6938"},
	{"sokoban", "boxoban/unfiltered/train/041.txt", BoxobanBase + "unfiltered/train/041.txt", 116890, "1bccccbb22e627581a627711586c3eaf2478dfca2893ec025db3d31cfa9b31c3"},
	{"sokoban", "boxoban/unfiltered/train/042.txt", BoxobanBase + "unfiltered/train/042.txt", 116890, "dfcf70757e149859d4b590ab7a977997d02756c97c19e1edead86b5b6abce787"},
	{"sokoban", "boxoban/unfiltered/train/043.txt", BoxobanBase + "unfiltered/train/043.txt", 116890, "c476bd2d176f9ba342bf95aa0fdb261110c85f77cf2519b1db8a639d4863f214"},
	{"sokoban", "boxoban/unfiltered/train/044.txt", BoxobanBase + "unfiltered/train/044.txt", 116890, "60f3f49ad04e48a43f0f4684c6fc4b6fb0031b592530c02672cb32a3cbcde095"},
	{"sokoban", "boxoban/unfiltered/train/045.txt", BoxobanBase + "unfiltered/train/045.txt", 116890, "cbaec55d33bf127a4b7647a925767810b6829fa628e1cdbe3abacdea981fc1c9"},
	{"sokoban", "boxoban/unfiltered/train/046.txt", BoxobanBase + "unfiltered/train/046.txt", 116890, "5123479a50bed3434ce0a64a2cd292706940157dcfc50c076cef7ddcc0331194"},
	{"sokoban", "boxoban/unfiltered/train/047.txt", BoxobanBase + "unfiltered/train/047.txt", 116890, "3f6c7e11cb1aaefe454e30167f2c584cbdbc3dc8de0d74ababd2b28e1f1c0241"},
	{"sokoban", "boxoban/unfiltered/train/048.txt", BoxobanBase + "unfiltered/train/048.txt", 116890, "c75a8a8f8289ff107e4ca774a0c8769cce1ced67ae498baa05dd826d7d759dfb"},
	{"sokoban", "boxoban/unfiltered/train/049.txt", BoxobanBase + "unfiltered/train/049.txt", 116890, "374b800fa815239aa10d0b2d24c1b5eee9e0789c8601071d5e8d808f05ad50d0"},
	{"sokoban", "boxoban/unfiltered/test/000.txt", BoxobanBase + "unfiltered/test/000.txt", 116890, "272928a4e7c185fdf84daa523b298750b6ff08703cb0c20d3be7eff93acc5256"},
	{"stp", "stp/LICENSE", ApacheLicenseURL, 11357, "c71d239df91726fc519c6eb72d318ec65820627232b2f796219e87dcf35d0ab4"},
	{"stp", "stp/puzzles_5x5_train.txt", HLevinBase + "problems/stp/puzzles_5x5_train/puzzles_50000", 3300000, "1611fed2cdb160ea350de2654d19ec5273a9b5d88405111d683aeaaf5129d663"},
	{"stp", "stp/puzzles_5x5_test.txt", HLevinBase + "problems/stp/puzzles_5x5_test/puzzles_1000", 66000, "98d6760697a09041e104fc56c181b003bb94a4509f56ccdbeb930af35db19ede"},
	{"witness", "witness/LICENSE", ApacheLicenseURL, 11357, "c71d239df91726fc519c6eb72d318ec65820627232b2f796219e87dcf35d0ab4"},
	{"witness", "witness/puzzles_4x4_train.txt", "", 4884481, "45d66be82602b10e81c1ec9c3b4ad5c95c6791fb9bc5876bc4d1b76006de0dfd"},
	{"witness", "witness/puzzles_4x4_test.txt", "", 98020, "d8d6db3c6e82e34a2b43ae46a44ac75be979ec3b69fcaff315525333e42b431e"},
}
