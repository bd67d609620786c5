/** Vocabulary for the synthetic vault and its queries: daily-life topics in English and Chinese. */

const words = (text) => text.trim().split(/\s+/);

export const EN_NOUNS = words(`
  apartment balcony bike book bookshelf breakfast bus cake camera car cat coffee concert cookie couch
  deadline dinner doctor dog dream email exam festival film flight garden gift guitar gym haircut holiday
  hospital hotel interview jacket job kitchen laptop letter library lunch manager market meeting movie
  museum music noodles novel office painting park party passport phone piano picnic plan podcast project
  rain recipe restaurant review river salary sandwich schedule school scooter shoes shop sister brother
  sofa soup station storm street subway suitcase sunset supermarket tea teacher team ticket train trip
  umbrella vacation weather wedding window winter summer spring autumn yoga zoo birthday promotion
  presentation report budget contract landlord neighbour bakery climbing hiking swimming running marathon
  tennis badminton basketball football chess puzzle game console keyboard monitor server database bug
  release deploy migration scheduler pipeline notebook journal diary therapy anxiety headache cold fever
  medicine vitamins allergy dentist glasses watch wallet keys charger headphones speaker playlist album
  band lyrics poem story article newsletter blog photo video stream course lecture degree thesis visa
  embassy airport luggage hostel beach mountain lake forest island temple bridge tower castle village
  city countryside farm harvest pumpkin dumplings hotpot sushi ramen pizza burger salad pasta curry
  chocolate icecream milk latte matcha wine beer juice water bread rice tofu mango peach strawberry
  watermelon orange apple banana grapes lemon garlic ginger pepper salt sugar oven fridge microwave
  blanket pillow lamp curtain plant flower cactus bonsai aquarium hamster rabbit parrot turtle kitten puppy
`);

export const EN_VERBS = words(`
  bought cooked visited called texted finished started cancelled booked moved cleaned fixed broke lost
  found painted wrote read watched played learned taught borrowed returned planned forgot remembered
  missed met hugged argued laughed cried slept woke walked ran climbed swam drove rode flew packed
  unpacked ordered delivered shared posted deleted uploaded downloaded installed debugged reviewed
  shipped tested measured baked grilled tasted tried enjoyed hated loved recommended complained
  celebrated apologised promised decided worried relaxed stretched meditated practiced rehearsed
`);

export const EN_ADJECTIVES = words(`
  quiet noisy sunny rainy cold warm hot tired happy sad angry calm busy lazy early late long short
  expensive cheap new old small big bright dark sweet spicy salty bitter fresh stale soft hard funny
  boring strange lovely awful great terrible nervous excited proud lonely cozy messy tidy slow fast
`);

export const EN_FILLERS = words(`
  the a with after before because and but so then again today really maybe finally almost just
  still also very quite pretty too some more less about around near into over under
`);

export const ZH_WORDS = words(`
  今天 明天 周末 早上 晚上 中午 下班 上班 加班 开会 项目 老板 同事 朋友 家人 妈妈 爸爸 姐姐 哥哥
  妹妹 弟弟 奶奶 爷爷 猫咪 小狗 咖啡 奶茶 火锅 饺子 面条 米饭 蛋糕 水果 西瓜 草莓 苹果 香蕉 早餐
  午饭 晚饭 外卖 超市 商场 公园 地铁 公交 出租 高铁 飞机 机场 酒店 旅行 出差 假期 春节 中秋 国庆
  生日 礼物 电影 音乐 演唱 唱歌 跳舞 跑步 游泳 爬山 健身 瑜伽 骑车 散步 看书 写字 画画 拍照 做饭
  洗碗 打扫 搬家 租房 房东 邻居 阳台 厨房 卧室 沙发 书架 窗帘 台灯 被子 枕头 衣服 鞋子 裤子 外套
  雨伞 手机 电脑 键盘 耳机 充电 网络 软件 代码 测试 上线 部署 数据 服务 系统 问题 需求 计划 预算
  报告 汇报 面试 简历 工资 加薪 辞职 入职 学习 考试 论文 老师 学校 课程 英语 日语 医院 医生 感冒
  发烧 头疼 失眠 吃药 体检 牙医 眼镜 心情 开心 难过 生气 焦虑 紧张 放松 无聊 累了 困了 饿了 担心
  害怕 惊喜 感动 后悔 想念 喜欢 讨厌 决定 打算 答应 约好 吵架 和好 道歉 聊天 视频 电话 微信 消息
  天气 下雨 下雪 晴天 阴天 刮风 降温 太阳 月亮 星星 海边 山上 湖边 森林 小镇 老街 寺庙 博物 展览
  图书 书店 花店 面包 烘焙 甜品 水饺 包子 馄饨 烧烤 寿司 拉面 披萨 汉堡 沙拉 意面 咖喱 巧克力
  绿茶 红茶 果汁 啤酒 红酒 牛奶 豆浆 油条 月饼 粽子 汤圆 饼干 零食 宠物 金鱼 仓鼠 兔子 植物 多肉
`);

export const PEOPLE = words(`
  Alice Ben Chloe Daniel Emma Felix Grace Henry Iris Jack Kevin Lily Mason Nora Oscar Peter Quinn Rosa
  Sam Tina Uma Victor Wendy Xavier Yara Zoe Aaron Bella Caleb Diana Ethan Fiona George Hannah Ivan Julia
  Kyle Laura Mike Nina Owen Paula Ryan Sophie Tom Vera Will Amy Bruce Cindy David Eva Frank Gina Hugo
  Ivy Jason Kate Leo Mia Nick Olivia Paul Rachel Steve Tracy Vince Wanda
  林雪 许哲 王芳 李娜 张伟 刘洋 陈静 杨帆 赵磊 黄敏 周杰 吴婷 徐明 孙丽 马超 朱琳 胡军 郭瑶 何平
  高飞 罗刚 梁静 宋雨 郑凯 谢婷 韩梅 唐宁 冯涛 于洋 董洁 萧然 程浩 曹颖 袁野 邓超 许晴 傅雷 沈悦
  曾毅 彭博 吕方 苏菲 卢卡 蒋欣 蔡琴 贾玲 丁一 魏来 薛之 叶子 阎凯 余欢 潘多 杜鹃 戴安 夏天 钟情
  汪洋 田甜 任重 姜文 范冰 方圆 石磊 姚明 谭咏 廖凡 邹静 熊猫 金星 陆川 郝蕾 孔亮 白露 崔健 康辉
  毛毛 邱天 秦岚 江南 史航 顾城 侯明 邵兵 孟非 龙飞 万千 段誉 雷雨 钱程 汤姆 尹正 黎明 易安 常青
`);

export const PLACES = words(`
  Shanghai Hangzhou Beijing Shenzhen Chengdu Xiamen Suzhou Nanjing Qingdao Kyoto Tokyo Osaka Seoul
  Singapore Bangkok Taipei London Paris Berlin Lisbon Barcelona Vancouver Seattle Boston Melbourne
  Office Gym Library Bakery Manner Starbucks Costa Muji Ikea Uniqlo
  徐汇 静安 浦东 滨江 西湖 九溪 外滩 陆家嘴 五角场 新天地 田子坊 迪士尼 苏州河 武康路 愚园路
  南京路 人民广场 虹桥 杭州东站 龙井 灵隐寺 千岛湖 莫干山 乌镇 西塘 周庄 黄山 张家界 丽江 大理
  三亚 厦门鼓浪屿 成都宽窄巷子 重庆洪崖洞 长沙 武汉 西安 洛阳 青岛 大连 哈尔滨
`);

export const TOPICS_EN = words(`
  moving work family health food travel money friends music reading sleep exercise pets weather
  cooking coding career shopping hobbies study relationship holiday weekend birthday
`);

export const TIME_WORDS_ZH = [
  '昨天',
  '前天',
  '上周',
  '上周末',
  '这周',
  '上个月',
  '今天',
  '三天前',
  '去年',
  '7月21号',
];
export const TIME_WORDS_EN = [
  'yesterday',
  'last week',
  'last weekend',
  'last month',
  'two days ago',
  'this week',
  'on Monday',
  'last year',
  'in March',
  'today',
];
